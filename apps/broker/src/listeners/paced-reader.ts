/**
 * Paced input: at most {@link SLICE_BYTES} per connection per event-loop turn, whatever carries it.
 * @module
 */
import { SLICE_BYTES } from "../mqtt/transport.js";

/** A byte source that can stop and restart delivering (a socket, a WebSocket). */
export interface Pausable {
  pause(): void;
  resume(): void;
  /** Whether the source is gone: the backlog is then dropped. */
  readonly destroyed: boolean;
}

/**
 * Feeds a source's data to `deliver` at most {@link SLICE_BYTES} per event-loop turn, pausing the
 * source while a backlog remains. A 64 KiB read of small PUBLISHes fanned out to a thousand
 * subscribers is close to a million deliveries, and one WebSocket message can hold a hundred
 * thousand packets; taken in one go either would starve every other connection (no CONNACK for
 * anyone) and pile up output. Paced, the flooding client is slowed by TCP itself while the rest of
 * the broker keeps turning.
 */
export function pacedReader(source: Pausable, deliver: (slice: Uint8Array) => void): (chunk: Buffer) => void {
  let backlog: Buffer | undefined;
  const step = (): void => {
    if (backlog === undefined || source.destroyed) return;
    const slice = backlog.subarray(0, SLICE_BYTES);
    backlog = backlog.length > SLICE_BYTES ? backlog.subarray(SLICE_BYTES) : undefined;
    deliver(slice);
    if (backlog !== undefined) setImmediate(step);
    else source.resume();
  };
  return (chunk) => {
    if (chunk.length <= SLICE_BYTES && backlog === undefined) {
      deliver(chunk);
      return;
    }
    backlog = backlog === undefined ? chunk : Buffer.concat([backlog, chunk]);
    source.pause();
    step();
  };
}
