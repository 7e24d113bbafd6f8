import { concatBytes } from "./bytes.js";
import type { FramingEvent } from "./events.js";

/** What {@link EventQueue.poll} returns when nothing happened: one shared empty list. */
const NO_EVENTS: readonly FramingEvent[] = Object.freeze([]);

/**
 * Frames this large or larger always leave in a message of their own: merging saves a WebSocket
 * message (a header, a `send` call, an entry in the write) per frame, and that is worth copying a
 * small frame for, not a group's kilobytes.
 */
export const COALESCE_BELOW = 4096;

type Send = Extract<FramingEvent, { kind: "send" }>;

const small = (e: FramingEvent | undefined): e is Send => e?.kind === "send" && e.bytes.length < COALESCE_BELOW;

/** The events a connection produced since it was last polled, in order. */
export class EventQueue {
  #events: FramingEvent[] = [];
  readonly #recordBytes: number;

  /**
   * `recordBytes`: adjacent small "send" events are merged into one of at most this many bytes
   * when polled (qmux-01/02 over WebSocket, where a message is a record of whole frames); 0 keeps
   * one frame per message.
   */
  constructor(recordBytes = 0) {
    this.#recordBytes = recordBytes;
  }

  /** Queues `event`. */
  push(event: FramingEvent): void {
    this.#events.push(event);
  }

  /**
   * Hands over the queued events, not a copy unless sends were merged; with nothing queued, one
   * shared empty list (a session polls until it gets that, so an empty poll per drain must cost
   * nothing).
   */
  poll(): readonly FramingEvent[] {
    const events = this.#events;
    if (events.length === 0) return NO_EVENTS;
    this.#events = [];
    return this.#recordBytes === 0 ? events : coalesce(events, this.#recordBytes);
  }
}

// Merges each run of adjacent small sends (up to `limit` bytes together) into one send; the order
// of everything else is kept. Returns `events` itself when there is nothing to merge.
function coalesce(events: FramingEvent[], limit: number): FramingEvent[] {
  let i = 1;
  while (i < events.length && !(small(events[i - 1]) && small(events[i]))) i++;
  if (i >= events.length) return events;
  const out = events.slice(0, i - 1);
  let run: Uint8Array[] = [];
  let bytes = 0;
  const endRun = (): void => {
    const [only] = run;
    if (only !== undefined) out.push(run.length === 1 ? { kind: "send", bytes: only } : { kind: "send", bytes: concatBytes(run, bytes) });
    run = [];
    bytes = 0;
  };
  for (let k = i - 1; k < events.length; k++) {
    const e = events[k];
    if (e === undefined) continue;
    if (!small(e)) {
      endRun();
      out.push(e);
      continue;
    }
    if (bytes + e.bytes.length > limit) endRun();
    run.push(e.bytes);
    bytes += e.bytes.length;
  }
  endRun();
  return out;
}
