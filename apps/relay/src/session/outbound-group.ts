import type { GroupReader } from "@handoff/moq-resume";
import { FrameEncoder, LiteStreamWriter, framesHaveTimestamps, type LiteVersion } from "@handoff/moq-resume/lite";
import type { StreamId } from "../transport/index.js";
import type { Scheduled } from "./scheduler.js";
import type { SessionStats } from "./stats.js";
import type { StreamIo } from "./stream-io.js";

/** Encoded frames (size prefix + payload) by payload, shared by every outbound group (lite-01..04). */
const encodedFrames = new WeakMap<Uint8Array, Uint8Array>();

/** What one pump of a group stream achieved. */
export type PumpResult =
  /** No stream could be opened (peer stream limit): wait for streams-available. */
  | "no-stream"
  /** The framing's buffers are full: wait for writable. */
  | "blocked"
  /** Every frame available now is written: wait for the next frame. */
  | "idle"
  /** FIN or reset was written: the group is done. */
  | "done";

/**
 * One group sent to the peer on its own uni stream: the GROUP header, then each frame as the
 * shared copy receives it, then FIN. Bytes the framing did not accept stay here until it has room.
 */
export class OutboundGroup implements Scheduled {
  /** The stream, once opened. */
  streamId: StreamId | undefined;
  readonly sequence: number;
  readonly #chunks: Uint8Array[] = [];
  readonly #frames: FrameEncoder;
  #done = false;

  constructor(
    private readonly version: LiteVersion,
    private readonly subscribeId: number,
    private readonly reader: GroupReader,
    /** The owner's current priority (SUBSCRIBE_UPDATE may change it). */
    private readonly priorityOf: () => number,
    readonly order: number,
    private readonly stats: SessionStats,
  ) {
    this.sequence = reader.sequence;
    this.#frames = new FrameEncoder(version);
  }

  /** @inheritdoc */
  get priority(): number {
    return this.priorityOf();
  }

  /** Encoded bytes waiting here for the framing to take them. */
  get pendingBytes(): number {
    let total = 0;
    for (const chunk of this.#chunks) total += chunk.length;
    return total;
  }

  /** True once FIN or a reset was written. */
  get done(): boolean {
    return this.#done;
  }

  /** Writes as much as the framing takes now. */
  pump(io: StreamIo): PumpResult {
    if (this.#done) return "done";
    if (this.streamId === undefined) {
      const id = io.open(false);
      if (id === undefined) return "no-stream";
      this.streamId = id;
      this.stats.group("out");
      const writer = new LiteStreamWriter(this.version);
      this.#chunks.push(
        writer.encodeAll([
          { type: "stream_header", kind: "group" },
          { type: "group", subscribe: this.subscribeId, sequence: this.sequence },
        ]),
      );
    }
    const id = this.streamId;
    for (;;) {
      while (this.#chunks.length > 0) {
        const chunk = this.#chunks[0];
        if (chunk === undefined) break;
        const accepted = io.write(id, chunk, false);
        if (accepted < chunk.length) {
          this.#chunks[0] = chunk.subarray(accepted);
          return "blocked";
        }
        this.#chunks.shift();
      }
      const event = this.reader.readFrame();
      switch (event.kind) {
        case "frame":
          this.stats.frame("out", event.payload.length);
          this.#chunks.push(this.#encode(event.payload, event.timestamp));
          continue;
        case "gap":
          // Frames that no copy holds cannot be sent; the rest of the group still can.
          continue;
        case "pending":
          return "idle";
        case "end":
          io.write(id, new Uint8Array(0), true);
          this.#done = true;
          return "done";
        case "lost":
          io.reset(id, 0);
          this.#done = true;
          return "done";
        default: {
          const never: never = event;
          throw new Error(`unexpected frame event ${JSON.stringify(never)}`);
        }
      }
    }
  }

  #encode(payload: Uint8Array, timestamp: number | undefined): Uint8Array {
    // Every subscriber of a track reads the same payload object, and before lite-05 a frame's
    // bytes do not depend on the stream: encode it once for all of them. One buffer per frame
    // also makes header and payload leave in one STREAM frame (one WebSocket message).
    const shareable = !framesHaveTimestamps(this.version);
    const cached = shareable ? encodedFrames.get(payload) : undefined;
    if (cached !== undefined) return cached;
    // lite-05 carries the publisher's timestamp unchanged; a frame from a lite-01..04 publisher
    // has none and goes out as 0 (see the README).
    const head = this.#frames.header(payload.length, shareable ? undefined : (timestamp ?? 0));
    const out = new Uint8Array(head.length + payload.length);
    out.set(head, 0);
    out.set(payload, head.length);
    if (shareable) encodedFrames.set(payload, out);
    return out;
  }

  /** Abandons the group (skipped, unsubscribed or the peer stopped it). */
  abandon(io: StreamIo, code: number): void {
    if (this.#done) return;
    this.#done = true;
    this.#chunks.length = 0;
    if (this.streamId !== undefined) io.reset(this.streamId, code);
  }
}
