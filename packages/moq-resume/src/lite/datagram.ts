import { attempt, type LiteResult } from "./errors.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { BodyReader } from "./reader.js";
import { type LiteVersion, hasTrackStream, versionError } from "./version.js";
import { ByteWriter } from "./writer.js";

/** Largest datagram body the reference sends. */
export const MAX_DATAGRAM_SIZE = 1200;

/**
 * A lite-05 datagram (QUIC/WebTransport only): a single-frame group. No length prefix: the
 * payload runs to the end of the datagram. `timestamp` is absolute (no previous frame).
 */
export interface Datagram {
  /** Tells a datagram apart from the stream messages it is handled beside. */
  readonly type: "datagram";
  /** The subscribe id the datagram answers. */
  readonly subscribe: number;
  /** The group's sequence number. */
  readonly sequence: number;
  /** The frame's timestamp in the track timescale. */
  readonly timestamp: number;
  /** The frame: everything after the header. */
  readonly payload: Uint8Array;
}

/** Encodes a datagram body. Throws {@link LiteError} when the version has none. */
export function encodeDatagram(msg: Datagram, version: LiteVersion): Uint8Array {
  if (!hasTrackStream(version)) throw versionError("datagram", version, true);
  return new ByteWriter(msg.payload.length + 24)
    .varint(msg.subscribe, "subscribe id")
    .varint(msg.sequence, "group sequence")
    .varint(msg.timestamp, "timestamp")
    .bytes(msg.payload)
    .finish();
}

/** Decodes a datagram body; the payload is a view into `bytes`. */
export function decodeDatagram(bytes: Uint8Array, version: LiteVersion): LiteResult<Datagram> {
  return attempt(() => {
    if (!hasTrackStream(version)) throw versionError("datagram", version, false);
    const r = new BodyReader(bytes, DEFAULT_LIMITS);
    const subscribe = r.varint();
    const sequence = r.varint();
    const timestamp = r.varint();
    return { type: "datagram", subscribe, sequence, timestamp, payload: r.rest() };
  });
}
