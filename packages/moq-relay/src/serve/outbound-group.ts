import type { GroupReader } from "@handoff/moq-resume";
import { FrameEncoder, LiteStreamWriter, framesHaveTimestamps, type LiteVersion } from "@handoff/moq-resume/lite";
import { MAX_STREAM_PAYLOAD, type StreamId } from "@handoff/qmux";
import { RelayCode } from "../rules/index.js";
import type { Scheduled } from "./scheduler.js";
import type { ServedSubscription } from "./served-subscription.js";
import type { SessionStats, StreamIo } from "../context/index.js";

/** Encoded frames (size prefix + payload) by payload, shared by every outbound group (lite-01..04). */
const encodedFrames = new WeakMap<Uint8Array, Uint8Array>();

/**
 * lite-05 frames by payload: the header carries the timestamp as a delta from the stream's previous
 * frame, so an encoding is shared by the streams that had the same previous timestamp (every
 * subscriber that read the group from its start).
 */
const timedFrames = new WeakMap<Uint8Array, { readonly previous: number; readonly timestamp: number; readonly bytes: Uint8Array }>();

/** A group stream's header as encoded, with what it says. */
interface EncodedHeader {
  readonly subscribe: number;
  readonly sequence: number;
  readonly frameStart: number;
  readonly bytes: Uint8Array;
}

/**
 * Per version, the header encoder and the header it encoded last. A header keeps no per-stream
 * state (only frames do), so one writer serves every group stream of a version. A new group goes
 * to every subscriber of its track in one pass, and their subscribe ids are mostly the same (each
 * peer numbers its own subscriptions from 0), so the last header is usually the next one too:
 * shared, like the frames' encodings, instead of encoded once per group per subscriber.
 */
const headers = new Map<LiteVersion, { readonly writer: LiteStreamWriter; last: EncodedHeader | undefined }>();

function groupHeader(version: LiteVersion, subscribe: number, sequence: number, frameStart: number): Uint8Array {
  let entry = headers.get(version);
  if (entry === undefined) {
    entry = { writer: new LiteStreamWriter(version), last: undefined };
    headers.set(version, entry);
  }
  const last = entry.last;
  if (last?.subscribe === subscribe && last.sequence === sequence && last.frameStart === frameStart) return last.bytes;
  const bytes = entry.writer.encodeAll([
    { type: "stream_header", kind: "group" },
    { type: "group", subscribe, sequence, ...(frameStart > 0 ? { frameStart } : {}) },
  ]);
  entry.last = { subscribe, sequence, frameStart, bytes };
  return bytes;
}

/**
 * Bytes gathered into one write: what one qmux STREAM frame (one WebSocket message) carries, so the
 * frames that arrived in one turn leave together instead of one message each.
 */
const COALESCE_BYTES = MAX_STREAM_PAYLOAD;

/** What one pump of a group stream achieved. */
export type PumpResult =
  /** No stream could be opened (peer stream limit): wait for streams-available. */
  | "no-stream"
  /** The framing's buffers are full: wait for writable. */
  | "blocked"
  /** Every frame available now is written: wait for the next frame. */
  | "idle"
  /**
   * Asked to `hold` a lone header: the stream is open and its header encoded but nothing written
   * yet, so that it leaves with the group's first frames (one message, not two); the caller pumps
   * again before the turn ends.
   */
  | "held"
  /** FIN or reset was written: the group is done. */
  | "done";

/**
 * One group sent to the peer on its own uni stream: the GROUP header, then each frame as the
 * shared copy receives it, then FIN. What is available at a pump goes out in one write (FIN with
 * the last frame); bytes the framing did not accept stay here until it has room.
 */
export class OutboundGroup implements Scheduled {
  /** The stream, once opened. */
  streamId: StreamId | undefined;
  readonly sequence: number;
  /**
   * The subscription it serves, from scheduling until retired: the session's bookkeeping, kept
   * here rather than in a map by group (a map that empties with every group re-makes its table).
   */
  owner: ServedSubscription | undefined = undefined;
  /** In the session's list of groups to pump (that list's membership, see `FlagList`). */
  dirty = false;
  /** @inheritdoc */
  idle = false;
  #held: Uint8Array[] = [];
  /** The list the last write took, emptied and reused as the next held list (no list per write). */
  #spare: Uint8Array[] = [];
  #heldBytes = 0;
  /** The timestamp of the last frame encoded (lite-05 headers carry deltas from it). */
  #previous = 0;
  readonly #timed: boolean;
  #done = false;
  /** The header is encoded and held, nothing of the stream written yet. */
  #headerUnsent = false;
  /** Frames were skipped (a gap): the group must not end with FIN as if whole. */
  #incomplete = false;

  readonly #version: LiteVersion;
  readonly #subscribeId: number;
  readonly #reader: GroupReader;
  readonly #stats: SessionStats;
  readonly #frameStart: number;

  constructor(
    version: LiteVersion,
    subscribeId: number,
    reader: GroupReader,
    stats: SessionStats,
    /** lite-06: the first frame to send (a subscriber joining the group there; 0: from its start). */
    frameStart = 0,
  ) {
    this.#version = version;
    this.#subscribeId = subscribeId;
    this.#reader = reader;
    this.#stats = stats;
    this.#frameStart = frameStart;
    this.sequence = reader.sequence;
    this.#timed = framesHaveTimestamps(version);
    if (frameStart > 0) reader.skipTo(frameStart);
  }

  /** Encoded bytes waiting here for the framing to take them. */
  get pendingBytes(): number {
    return this.#heldBytes;
  }

  /** True once FIN or a reset was written. */
  get done(): boolean {
    return this.#done;
  }

  /**
   * Writes as much as the framing takes now. With `hold`, a header that no frame follows yet is
   * kept back ("held") instead of being written alone.
   */
  pump(io: StreamIo, hold = false): PumpResult {
    if (this.#done) return "done";
    if (this.streamId === undefined) {
      const id = io.open(false);
      if (id === undefined) return "no-stream";
      this.streamId = id;
      this.#stats.group("out");
      this.#hold(groupHeader(this.#version, this.#subscribeId, this.sequence, this.#frameStart));
      this.#headerUnsent = true;
    }
    const id = this.streamId;
    for (;;) {
      let fin = false;
      gather: while (this.#heldBytes < COALESCE_BYTES) {
        const event = this.#reader.readFrame();
        switch (event.kind) {
          case "frame":
            this.#stats.frame("out", event.payload.length);
            this.#hold(this.#encode(event.payload, event.timestamp));
            continue;
          case "gap":
            // Frames that no copy holds cannot be sent; the rest of the group still can, and the
            // stream is reset at the end instead of finished.
            this.#incomplete = true;
            continue;
          case "pending":
            break gather;
          case "end":
            fin = true;
            break gather;
          case "lost":
            this.#release();
            return this.#resetIncomplete(io, id);
          default: {
            const never: never = event;
            throw new Error(`unexpected frame event ${JSON.stringify(never)}`);
          }
        }
      }
      if (this.#heldBytes === 0 && !fin) return "idle";
      if (hold && !fin && this.#held.length === 1 && this.#headerUnsent) return "held";
      const full = this.#heldBytes >= COALESCE_BYTES;
      const total = this.#heldBytes;
      const parts = this.#take();
      const accepted = io.write(id, parts, fin && !this.#incomplete);
      // The framing keeps the parts, not the list: it is the next spare.
      if (accepted < total) {
        // FIN was not applied; the group reader reports its end again on the next pump.
        this.#keepAfter(parts, accepted);
        parts.length = 0;
        return "blocked";
      }
      parts.length = 0;
      if (fin) {
        if (this.#incomplete) return this.#resetIncomplete(io, id);
        this.#done = true;
        return "done";
      }
      if (!full) return "idle";
    }
  }

  /** Resets a group that lost frames on the way (README: code 422), never FIN as if whole. */
  #resetIncomplete(io: StreamIo, id: StreamId): PumpResult {
    io.reset(id, RelayCode.Incomplete);
    this.#stats.incomplete?.();
    this.#stats.groupReset?.(RelayCode.Incomplete);
    this.#done = true;
    return "done";
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldBytes += bytes.length;
  }

  /**
   * What is held, as parts: the header and the shared frame encodings themselves, never joined
   * here (the framing copies them once, into the wire unit).
   */
  #take(): Uint8Array[] {
    const held = this.#held;
    this.#held = this.#spare;
    this.#spare = held;
    this.#headerUnsent = false;
    this.#heldBytes = 0;
    return held;
  }

  /** Holds again what the framing did not take: `parts` past their first `accepted` bytes. */
  #keepAfter(parts: readonly Uint8Array[], accepted: number): void {
    let skip = accepted;
    for (const part of parts) {
      if (skip >= part.length) {
        skip -= part.length;
        continue;
      }
      this.#hold(skip === 0 ? part : part.subarray(skip));
      skip = 0;
    }
  }

  #release(): void {
    this.#headerUnsent = false;
    this.#held.length = 0;
    this.#heldBytes = 0;
  }

  #encode(payload: Uint8Array, timestamp: number | undefined): Uint8Array {
    // Every subscriber of a track reads the same payload object: encode it once for all of them.
    // One buffer per frame also lets a lone frame leave without a copy.
    if (!this.#timed) {
      const cached = encodedFrames.get(payload);
      if (cached !== undefined) return cached;
      const out = withHeader(new FrameEncoder(this.#version).header(payload.length), payload);
      encodedFrames.set(payload, out);
      return out;
    }
    // lite-05 carries the publisher's timestamp unchanged; a frame from a lite-01..04 publisher
    // has none and goes out as 0 (see the README).
    const stamp = timestamp ?? 0;
    const previous = this.#previous;
    this.#previous = stamp;
    const cached = timedFrames.get(payload);
    if (cached?.previous === previous && cached.timestamp === stamp) return cached.bytes;
    const bytes = withHeader(new FrameEncoder(this.#version, previous).header(payload.length, stamp), payload);
    timedFrames.set(payload, { previous, timestamp: stamp, bytes });
    return bytes;
  }

  /** Abandons the group (skipped, unsubscribed or the peer stopped it). */
  abandon(io: StreamIo, code: number): void {
    if (this.#done) return;
    this.#done = true;
    this.#release();
    // The read ends here: the track stops keeping copies for frames this stream will never send.
    this.#reader.close();
    if (this.streamId === undefined) return;
    io.reset(this.streamId, code);
    this.#stats.groupReset?.(code);
  }
}

function withHeader(head: Uint8Array, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + payload.length);
  out.set(head, 0);
  out.set(payload, head.length);
  return out;
}
