import { FramingError, TransportError } from "./errors.js";
import type { QmuxVersion } from "./events.js";
import { MAX_FRAME_SIZE, type Frame } from "./frame.js";
import { decodeLegacyMessage, encodeLegacyFrame } from "./legacy-codec.js";
import { decodeQmuxFrame, encodeQmuxFrame, frameSizeHint } from "./qmux-codec.js";
import { ByteReader } from "./byte-reader.js";
import { HeldChunks } from "./held-chunks.js";
import { MIN_RECORD_SIZE } from "./transport-params.js";

/** Frames decoded from one `push`, and the violation that stopped decoding, if any. */
export interface Deframed {
  readonly frames: Frame[];
  readonly error: FramingError | undefined;
}

/**
 * One framing over one carrier: how frames become wire units and back. Decoded
 * frames hold views into the pushed bytes, so callers must not reuse those buffers.
 */
export interface Wire {
  /** qmux carries transport parameters and flow control; the legacy framing has neither. */
  readonly flowControl: boolean;
  /** The qmux version (undefined on the legacy framing). */
  readonly version: QmuxVersion | undefined;
  /** Several frames may share one outbound unit of up to this many bytes; 0: one frame per unit. */
  readonly recordBytes: number;
  /** Encodes one frame as one wire unit (undefined when this framing cannot carry it). */
  encode(frame: Frame): Uint8Array | undefined;
  /** Decodes one inbound WebSocket message, or the next chunk of a byte stream. */
  push(data: Uint8Array): Deframed;
}

const tooLarge = (): FramingError =>
  new FramingError(TransportError.FRAME_ENCODING_ERROR, `frame larger than ${MAX_FRAME_SIZE} bytes`);

/**
 * qmux over WebSocket: a message holds one or more frames (qmux-00 allows several;
 * on qmux-01/02 a message is one record, its Size field replaced by the message
 * boundary, and may be empty). We send one frame per message on qmux-00 (the `@moq/qmux` 0.0.x
 * reader takes exactly one) and records of several small frames on 01/02, no larger than the
 * smallest max_record_size a peer may advertise. The inbound limit is max_frame_size on qmux-00
 * and our max_record_size on the record versions.
 */
export function qmuxMessageWire(maxMessageSize = MAX_FRAME_SIZE, version: QmuxVersion = "qmux-00"): Wire {
  return {
    flowControl: true,
    version,
    recordBytes: version === "qmux-00" ? 0 : MIN_RECORD_SIZE,
    encode: encodeQmuxFrame,
    push(message) {
      if (message.length > maxMessageSize) return { frames: [], error: tooLarge() };
      const frames: Frame[] = [];
      const reader = new ByteReader(message, 0, message.length);
      while (reader.remaining > 0) {
        const result = decodeQmuxFrame(reader, true);
        if (result === "short") {
          return { frames, error: new FramingError(TransportError.FRAME_ENCODING_ERROR, "truncated frame") };
        }
        if (result instanceof FramingError) return { frames, error: result };
        frames.push(result);
      }
      return { frames, error: undefined };
    },
  };
}

/**
 * qmux-00 over a byte stream (TCP, TLS, Unix): frames back to back with no record
 * layer (draft-00; records arrive with qmux-01). Every frame must be
 * self-delimiting and at most MAX_FRAME_SIZE bytes, so at most one partial frame
 * (< MAX_FRAME_SIZE bytes) is ever held between pushes. Once a partial frame's
 * header tells its size, chunks are only collected until it is complete, so a
 * peer trickling bytes costs no re-parsing.
 */
export function qmuxStreamWire(): Wire {
  const held = new HeldChunks();
  return {
    flowControl: true,
    version: "qmux-00",
    recordBytes: 0,
    encode: encodeQmuxFrame,
    push(chunk) {
      const bytes = held.take(chunk);
      if (bytes === undefined) return { frames: [], error: undefined };
      const frames: Frame[] = [];
      const reader = new ByteReader(bytes, 0, bytes.length);
      while (reader.pos < bytes.length) {
        const start = reader.pos;
        const result = decodeQmuxFrame(reader, false);
        if (result === "short") {
          const size = frameSizeHint(new ByteReader(bytes, start, bytes.length));
          if ((size ?? 0) > MAX_FRAME_SIZE || bytes.length - start >= MAX_FRAME_SIZE) return { frames, error: tooLarge() };
          held.hold(bytes, start, size ?? 0);
          return { frames, error: undefined };
        }
        if (result instanceof FramingError) return { frames, error: result };
        if (reader.pos - start > MAX_FRAME_SIZE) return { frames, error: tooLarge() };
        frames.push(result);
      }
      return { frames, error: undefined };
    },
  };
}

/** The legacy "webtransport" framing over WebSocket: exactly one frame per message. */
export function legacyMessageWire(maxMessageSize = 65_536): Wire {
  return {
    flowControl: false,
    version: undefined,
    recordBytes: 0,
    encode: encodeLegacyFrame,
    push(message) {
      if (message.length > maxMessageSize) return { frames: [], error: tooLarge() };
      const frame = decodeLegacyMessage(message);
      return frame instanceof FramingError ? { frames: [], error: frame } : { frames: [frame], error: undefined };
    },
  };
}
