import { copyParts, partsLength } from "./bytes.js";
import { FramingError, TransportError } from "./errors.js";
import type { Frame } from "./frame.js";
import { ByteReader } from "./byte-reader.js";
import { varintSize, writeVarint } from "./varint.js";

// The pre-qmux "webtransport" WebSocket framing (@moq/web-transport-ws,
// @kixelated/web-transport-ws): one frame per message, a one-byte type, no
// offsets, no flow control, the payload or reason running to the message end.

const STREAM = 0x08;
const STREAM_FIN = 0x09;
const RESET_STREAM = 0x04;
const STOP_SENDING = 0x05;
const CONNECTION_CLOSE = 0x1c;
const APPLICATION_CLOSE = 0x1d;

const utf8 = new TextEncoder();
const lossy = new TextDecoder();

/**
 * Encodes a frame as one legacy message, or undefined for frames the legacy
 * framing cannot carry (flow control, parameters, datagrams) — the session never
 * produces those on this framing. Both close variants go out as 0x1d because
 * @moq/qmux 0.0.6 only understands that one.
 */
export function encodeLegacyFrame(frame: Frame): Uint8Array | undefined {
  switch (frame.type) {
    case "stream": {
      const parts = frame.parts;
      const out = new Uint8Array(1 + varintSize(frame.id) + (parts === undefined ? frame.data.length : partsLength(parts)));
      out[0] = frame.fin ? STREAM_FIN : STREAM;
      const pos = writeVarint(out, 1, frame.id);
      if (parts === undefined) out.set(frame.data, pos);
      else copyParts(out, pos, parts);
      return out;
    }
    case "reset-stream":
    case "stop-sending": {
      const out = new Uint8Array(1 + varintSize(frame.id) + varintSize(frame.code));
      out[0] = frame.type === "reset-stream" ? RESET_STREAM : STOP_SENDING;
      writeVarint(out, writeVarint(out, 1, frame.id), frame.code);
      return out;
    }
    case "connection-close":
    case "application-close": {
      const text = utf8.encode(frame.reason);
      const out = new Uint8Array(1 + varintSize(frame.code) + text.length);
      out[0] = APPLICATION_CLOSE;
      out.set(text, writeVarint(out, 1, frame.code));
      return out;
    }
    case "padding":
    case "max-data":
    case "max-stream-data":
    case "max-streams":
    case "data-blocked":
    case "stream-data-blocked":
    case "streams-blocked":
    case "datagram":
    case "transport-parameters":
    case "reset-stream-at":
    case "ping":
      return undefined;
    default:
      return assertNever(frame);
  }
}

/** Decodes one legacy message; anything malformed is a FRAME_ENCODING_ERROR result. */
export function decodeLegacyMessage(message: Uint8Array): Frame | FramingError {
  const encoding = (why: string): FramingError => new FramingError(TransportError.FRAME_ENCODING_ERROR, why);
  if (message.length === 0) return encoding("empty message");
  const reader = new ByteReader(message, 1, message.length);
  let frame: Frame;
  const type = message[0] ?? 0;
  switch (type) {
    case STREAM:
    case STREAM_FIN: {
      const id = reader.varint();
      frame = { type: "stream", id, offset: undefined, data: reader.rest(), fin: type === STREAM_FIN };
      break;
    }
    case RESET_STREAM:
      frame = { type: "reset-stream", id: reader.varint(), code: reader.varint(), finalSize: 0 };
      break;
    case STOP_SENDING:
      frame = { type: "stop-sending", id: reader.varint(), code: reader.varint() };
      break;
    case CONNECTION_CLOSE:
    case APPLICATION_CLOSE: {
      const code = reader.varint();
      const reason = lossy.decode(reader.rest());
      frame =
        type === CONNECTION_CLOSE
          ? { type: "connection-close", code, frameType: 0, reason }
          : { type: "application-close", code, reason };
      break;
    }
    default:
      return encoding(`unknown legacy frame type 0x${type.toString(16)}`);
  }
  if (reader.failed() !== undefined) return encoding(`malformed legacy frame (${reader.failed() ?? "?"})`);
  if (reader.remaining !== 0) return encoding("trailing bytes after legacy frame");
  return frame;
}

function assertNever(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
