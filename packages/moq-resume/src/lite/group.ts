import { encodeError, malformed } from "./errors.js";
import type { BodyReader } from "./reader.js";
import { checkEncodable, varintSize, writeVarint, zigzagEncode } from "./varint.js";
import { type LiteVersion, hasFrameBounds, hasTrackStream, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/** GROUP header, the first message of a group uni stream (size-prefixed). */
export interface GroupHeader {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "group";
  /** The subscribe id the group answers. */
  readonly subscribe: number;
  /** The group's sequence number within its track. */
  readonly sequence: number;
  /**
   * moq-lite-06: the index of the first frame on this stream (0 or absent: the group from its
   * start), so a stream carrying the rest of a group is self-describing.
   */
  readonly frameStart?: number;
}

/**
 * One FRAME. On lite-05 every frame carries a timestamp (in the track timescale), sent as a
 * zigzag delta from the previous frame of the same stream (the first from 0); `timestamp` here
 * is the absolute value. Before lite-05 it is undefined. `payload` is a view into the received
 * bytes whenever they arrived in one chunk.
 */
export interface Frame {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "frame";
  /** The frame's bytes. */
  readonly payload: Uint8Array;
  /** Absolute timestamp in the track timescale (lite-05+); undefined before. */
  readonly timestamp: number | undefined;
}

/** Encodes a GROUP header (size-prefixed). */
export function writeGroupHeader(w: ByteWriter, msg: GroupHeader, version: LiteVersion): void {
  const frameStart = msg.frameStart ?? 0;
  // An older peer would number the frames from 0 and misalign the group.
  if (frameStart !== 0 && !hasFrameBounds(version)) throw versionError("GROUP frame start", version, true);
  w.sized(() => {
    w.varint(msg.subscribe, "subscribe id").varint(msg.sequence, "group sequence");
    if (hasFrameBounds(version)) w.varint(frameStart, "frame start");
  });
}

/** Decodes a GROUP header body. */
export function readGroupHeader(r: BodyReader, version: LiteVersion): GroupHeader {
  const subscribe = r.varint();
  const sequence = r.varint();
  if (!hasFrameBounds(version)) return { type: "group", subscribe, sequence };
  return { type: "group", subscribe, sequence, frameStart: r.varint() };
}

/** Whether frames of `version` carry a timestamp delta. */
export function framesHaveTimestamps(version: LiteVersion): boolean {
  return hasTrackStream(version);
}

/**
 * Encodes frames for one group or fetch stream, remembering the previous timestamp for the
 * lite-05 delta. {@link FrameEncoder.header} returns only the header so a caller can send the
 * payload it already holds without copying it.
 */
export class FrameEncoder {
  #previous = 0;
  readonly #timed: boolean;
  readonly #scratch = new Uint8Array(16);

  /** An encoder for one stream of `version`; `previous` is the last timestamp already sent. */
  constructor(version: LiteVersion, previous = 0) {
    this.#timed = framesHaveTimestamps(version);
    this.#previous = previous;
  }

  /**
   * The header of a frame of `size` bytes: `[zigzag ts delta] size`. The returned view is reused
   * by the next call. `timestamp` is required on lite-05 and ignored before.
   */
  header(size: number, timestamp?: number): Uint8Array {
    checkEncodable(size, "frame size");
    let at = 0;
    if (this.#timed) {
      if (timestamp === undefined) throw encodeError("invalid_value", "lite-05 frames need a timestamp");
      checkEncodable(timestamp, "frame timestamp");
      const delta = zigzagEncode(timestamp - this.#previous);
      if (!Number.isSafeInteger(delta)) throw encodeError("unsafe_integer", "timestamp delta too large");
      at = writeVarint(this.#scratch, at, delta);
      this.#previous = timestamp;
    }
    at = writeVarint(this.#scratch, at, size);
    return this.#scratch.subarray(0, at);
  }

  /** Header and payload in one fresh buffer. */
  encode(payload: Uint8Array, timestamp?: number): Uint8Array {
    const head = this.header(payload.length, timestamp);
    const out = new Uint8Array(head.length + payload.length);
    out.set(head, 0);
    out.set(payload, head.length);
    return out;
  }

  /** Appends header and payload to `w`. */
  write(w: ByteWriter, payload: Uint8Array, timestamp?: number): void {
    w.bytes(this.header(payload.length, timestamp)).bytes(payload);
  }
}

/** Largest header a frame can have: two 8-byte varints. */
export const MAX_FRAME_HEADER = 16;

/** The timestamp after applying a decoded zigzag delta, refusing negative or unsafe results. */
export function applyTimestampDelta(previous: number, delta: number): number {
  const next = previous + delta;
  if (next < 0 || !Number.isSafeInteger(next)) throw malformed("invalid_value", "frame timestamp out of range");
  return next;
}

/** Encoded size of a frame header (for buffer planning). */
export function frameHeaderSize(size: number, timestampDelta?: number): number {
  return varintSize(size) + (timestampDelta === undefined ? 0 : varintSize(zigzagEncode(timestampDelta)));
}
