import { FramingError, TransportError } from "./errors.js";
import { copyParts, partsLength } from "./bytes.js";
import { frameBuffer } from "./frame-buffer.js";
import { FrameType, MAX_STREAMS_LIMIT, QX_PING_REQUEST, QX_PING_RESPONSE, QX_TRANSPORT_PARAMETERS, type Frame } from "./frame.js";
import { decodeTransportParams, encodeTransportParams } from "./transport-params.js";
import type { ByteReader } from "./byte-reader.js";
import { varintSize, writeVarint, writeVarintBig } from "./varint.js";

/** Result of decoding one frame: the frame, a violation, or "need more bytes". */
export type DecodeResult = Frame | FramingError | "short";

const utf8 = new TextEncoder();
const lossy = new TextDecoder();

/** Encodes one frame in qmux-00 wire format (QUIC v1 frame encoding, varint types). */
export function encodeQmuxFrame(frame: Frame): Uint8Array {
  switch (frame.type) {
    case "padding":
      return new Uint8Array(1);
    case "stream": {
      // LEN is always set so the frame is self-delimiting on a byte stream too.
      const offset = frame.offset;
      const off = offset !== undefined;
      const type = FrameType.STREAM | FrameType.STREAM_LEN | (off ? FrameType.STREAM_OFF : 0) | (frame.fin ? FrameType.STREAM_FIN : 0);
      const parts = frame.parts;
      const length = parts === undefined ? frame.data.length : partsLength(parts);
      const size = 1 + varintSize(frame.id) + (off ? varintSize(offset) : 0) + varintSize(length) + length;
      // Every byte is written below, so a slice of a shared slab will do.
      const out = frameBuffer(size);
      let pos = writeVarint(out, 0, type);
      pos = writeVarint(out, pos, frame.id);
      if (off) pos = writeVarint(out, pos, offset);
      pos = writeVarint(out, pos, length);
      if (parts === undefined) out.set(frame.data, pos);
      else copyParts(out, pos, parts);
      return out;
    }
    case "reset-stream":
      return ints(FrameType.RESET_STREAM, frame.id, frame.code, frame.finalSize);
    case "stop-sending":
      return ints(FrameType.STOP_SENDING, frame.id, frame.code);
    case "connection-close":
      return withReason(frame.reason, FrameType.CONNECTION_CLOSE, frame.code, frame.frameType);
    case "application-close":
      return withReason(frame.reason, FrameType.APPLICATION_CLOSE, frame.code);
    case "max-data":
      return ints(FrameType.MAX_DATA, frame.max);
    case "max-stream-data":
      return ints(FrameType.MAX_STREAM_DATA, frame.id, frame.max);
    case "max-streams":
      return ints(frame.bidi ? FrameType.MAX_STREAMS_BIDI : FrameType.MAX_STREAMS_UNI, frame.max);
    case "data-blocked":
      return ints(FrameType.DATA_BLOCKED, frame.limit);
    case "stream-data-blocked":
      return ints(FrameType.STREAM_DATA_BLOCKED, frame.id, frame.limit);
    case "streams-blocked":
      return ints(frame.bidi ? FrameType.STREAMS_BLOCKED_BIDI : FrameType.STREAMS_BLOCKED_UNI, frame.limit);
    case "datagram": {
      const out = new Uint8Array(1 + varintSize(frame.data.length) + frame.data.length);
      const pos = writeVarint(out, writeVarint(out, 0, FrameType.DATAGRAM_LEN), frame.data.length);
      out.set(frame.data, pos);
      return out;
    }
    case "reset-stream-at":
      return ints(FrameType.RESET_STREAM_AT, frame.id, frame.code, frame.finalSize, frame.reliableSize);
    case "ping": {
      const out = new Uint8Array(8 + varintSize(frame.sequence));
      writeVarint(out, writeVarintBig(out, 0, frame.response ? QX_PING_RESPONSE : QX_PING_REQUEST), frame.sequence);
      return out;
    }
    case "transport-parameters": {
      const body = encodeTransportParams(frame.params);
      const out = new Uint8Array(8 + varintSize(body.length) + body.length);
      const pos = writeVarint(out, writeVarintBig(out, 0, QX_TRANSPORT_PARAMETERS), body.length);
      out.set(body, pos);
      return out;
    }
    default:
      return assertNever(frame);
  }
}

function ints(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.reduce((n, v) => n + varintSize(v), 0));
  let pos = 0;
  for (const v of values) pos = writeVarint(out, pos, v);
  return out;
}

function withReason(reason: string, ...values: number[]): Uint8Array {
  const text = utf8.encode(reason);
  const head = ints(...values, text.length);
  const out = new Uint8Array(head.length + text.length);
  out.set(head, 0);
  out.set(text, head.length);
  return out;
}

/**
 * Decodes one frame at the reader's position. `bounded` means the reader's end is
 * a message boundary (WebSocket), so a STREAM or DATAGRAM frame without a length
 * runs to it; on a byte stream (TCP) such a frame cannot be delimited and is a
 * FRAME_ENCODING_ERROR. "short" means the frame is incomplete.
 */
export function decodeQmuxFrame(reader: ByteReader, bounded: boolean): DecodeResult {
  const encoding = (why: string): FramingError => new FramingError(TransportError.FRAME_ENCODING_ERROR, why);
  const typeBig = reader.varintBig();
  if (reader.failed() !== undefined) return "short";
  if (typeBig === QX_TRANSPORT_PARAMETERS) {
    const body = reader.take(reader.varint());
    if (reader.failed() !== undefined) return failed(reader);
    const params = decodeTransportParams(body);
    return params instanceof FramingError ? params : { type: "transport-parameters", params };
  }
  if (typeBig === QX_PING_REQUEST || typeBig === QX_PING_RESPONSE) {
    const sequence = reader.varint();
    if (reader.failed() !== undefined) return failed(reader);
    return { type: "ping", response: typeBig === QX_PING_RESPONSE, sequence };
  }
  if (typeBig > 0xffn) return encoding(`unknown frame type 0x${typeBig.toString(16)}`);
  const type = Number(typeBig);
  let frame: Frame;
  if (type >= FrameType.STREAM && type <= 0x0f) {
    const id = reader.varint();
    const offset = (type & FrameType.STREAM_OFF) !== 0 ? reader.varint() : undefined;
    let data: Uint8Array;
    if ((type & FrameType.STREAM_LEN) !== 0) data = reader.take(reader.varint());
    else if (bounded) data = reader.rest();
    else return encoding("STREAM frame without length on a byte stream");
    frame = { type: "stream", id, offset, data, fin: (type & FrameType.STREAM_FIN) !== 0 };
  } else {
    switch (type) {
      case FrameType.PADDING:
        return { type: "padding" };
      case FrameType.RESET_STREAM:
        frame = { type: "reset-stream", id: reader.varint(), code: reader.varint(), finalSize: reader.varint() };
        break;
      case FrameType.RESET_STREAM_AT: {
        const [id, code, finalSize, reliableSize] = [reader.varint(), reader.varint(), reader.varint(), reader.varint()];
        if (reader.failed() === undefined && reliableSize > finalSize) return encoding("RESET_STREAM_AT reliable size beyond its final size");
        frame = { type: "reset-stream-at", id, code, finalSize, reliableSize };
        break;
      }
      case FrameType.STOP_SENDING:
        frame = { type: "stop-sending", id: reader.varint(), code: reader.varint() };
        break;
      case FrameType.CONNECTION_CLOSE: {
        const code = reader.varint();
        const frameType = reader.varint();
        const reason = lossy.decode(reader.take(reader.varint()));
        frame = { type: "connection-close", code, frameType, reason };
        break;
      }
      case FrameType.APPLICATION_CLOSE: {
        const code = reader.varint();
        frame = { type: "application-close", code, reason: lossy.decode(reader.take(reader.varint())) };
        break;
      }
      case FrameType.MAX_DATA:
        frame = { type: "max-data", max: reader.varint() };
        break;
      case FrameType.MAX_STREAM_DATA:
        frame = { type: "max-stream-data", id: reader.varint(), max: reader.varint() };
        break;
      case FrameType.MAX_STREAMS_BIDI:
      case FrameType.MAX_STREAMS_UNI:
        frame = { type: "max-streams", bidi: type === FrameType.MAX_STREAMS_BIDI, max: reader.varint() };
        if (frame.max > MAX_STREAMS_LIMIT) return encoding("MAX_STREAMS above 2^60");
        break;
      case FrameType.DATA_BLOCKED:
        frame = { type: "data-blocked", limit: reader.varint() };
        break;
      case FrameType.STREAM_DATA_BLOCKED:
        frame = { type: "stream-data-blocked", id: reader.varint(), limit: reader.varint() };
        break;
      case FrameType.STREAMS_BLOCKED_BIDI:
      case FrameType.STREAMS_BLOCKED_UNI:
        frame = { type: "streams-blocked", bidi: type === FrameType.STREAMS_BLOCKED_BIDI, limit: reader.varint() };
        if (frame.limit > MAX_STREAMS_LIMIT) return encoding("STREAMS_BLOCKED above 2^60");
        break;
      case FrameType.DATAGRAM:
        if (!bounded) return encoding("DATAGRAM frame without length on a byte stream");
        frame = { type: "datagram", data: reader.rest() };
        break;
      case FrameType.DATAGRAM_LEN:
        frame = { type: "datagram", data: reader.take(reader.varint()) };
        break;
      default:
        return encoding(`unknown frame type 0x${type.toString(16)}`);
    }
  }
  return reader.failed() === undefined ? frame : failed(reader);
}

/**
 * The total size of the frame starting at the reader's position, once its header
 * is complete; undefined while the header is incomplete or for fixed-field frames
 * (which are a few bytes long). Lets a byte-stream reader wait for a long frame's
 * last byte without re-parsing it on every chunk.
 */
export function frameSizeHint(reader: ByteReader): number | undefined {
  const start = reader.pos;
  const typeBig = reader.varintBig();
  let body: number | undefined;
  if (typeBig === QX_TRANSPORT_PARAMETERS) body = reader.varint();
  else if (typeBig >= BigInt(FrameType.STREAM) && typeBig <= 0x0fn && (typeBig & BigInt(FrameType.STREAM_LEN)) !== 0n) {
    reader.varint();
    if ((typeBig & BigInt(FrameType.STREAM_OFF)) !== 0n) reader.varint();
    body = reader.varint();
  } else if (typeBig === BigInt(FrameType.CONNECTION_CLOSE)) {
    reader.varint();
    reader.varint();
    body = reader.varint();
  } else if (typeBig === BigInt(FrameType.APPLICATION_CLOSE)) {
    reader.varint();
    body = reader.varint();
  } else if (typeBig === BigInt(FrameType.DATAGRAM_LEN)) body = reader.varint();
  if (body === undefined || reader.failed() !== undefined) return undefined;
  return reader.pos - start + body;
}

function failed(reader: ByteReader): DecodeResult {
  return reader.failed() === "range"
    ? new FramingError(TransportError.FRAME_ENCODING_ERROR, "varint beyond 2^53-1 is not supported")
    : "short";
}

function assertNever(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
