import { ByteReader } from "./byte-reader.js";
import { MqttDecodeError, malformed } from "./errors.js";
import { MAX_PACKET_SIZE } from "./frame.js";
import type { Packet, ProtocolVersion } from "./packet.js";
import { decodeAuth } from "./packets/auth.js";
import { decodeConnack } from "./packets/connack.js";
import { decodeConnect } from "./packets/connect.js";
import { decodeDisconnect } from "./packets/disconnect.js";
import { PINGREQ, PINGRESP } from "./packets/ping.js";
import { decodePubAck } from "./packets/pub-acks.js";
import { decodePublish } from "./packets/publish.js";
import { decodeSuback } from "./packets/suback.js";
import { decodeSubscribe } from "./packets/subscribe.js";
import { decodeUnsuback } from "./packets/unsuback.js";
import { decodeUnsubscribe } from "./packets/unsubscribe.js";
import { VARINT_INCOMPLETE, readVarint, varintLength } from "./varint.js";

/** Outcome of decoding: the packet, or the first error found (never thrown). */
export type DecodeResult = { readonly ok: true; readonly packet: Packet } | { readonly ok: false; readonly error: MqttDecodeError };

/** Options of {@link decodePacket}. */
export interface DecodeOptions {
  /**
   * Protocol version of the connection. Undefined before CONNECT: then only a CONNECT can be
   * decoded (anything else is a Protocol Error), and the CONNECT announces the version.
   */
  readonly protocolVersion?: ProtocolVersion | undefined;
  /** Largest whole packet accepted, in bytes (default: the spec maximum, 268,435,460). */
  readonly maxPacketSize?: number;
}

// Required fixed-header flags for every type but PUBLISH (spec §2.1.3): PUBREL, SUBSCRIBE and
// UNSUBSCRIBE use 0b0010, the rest 0. Index = packet type; -1 marks PUBLISH and the reserved 0.
const REQUIRED_FLAGS = [-1, 0, 0, -1, 0, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0] as const;

/**
 * Decodes one packet body (the bytes after the fixed header, `start`..`end` of `buf`) given the
 * first byte of the fixed header. Throws MqttDecodeError; the public API wraps it.
 */
export function decodeBody(
  firstByte: number,
  buf: Uint8Array,
  start: number,
  end: number,
  version: ProtocolVersion | undefined,
): Packet {
  const type = firstByte >> 4;
  const flags = firstByte & 0x0f;
  if (type === 0) throw malformed("reserved packet type 0");
  const required = REQUIRED_FLAGS[type] ?? -1;
  if (required >= 0 && flags !== required) throw malformed(`invalid fixed-header flags for packet type ${type}`);
  const r = new ByteReader(buf, start, end);
  if (type === 1) {
    const p = decodeConnect(r);
    if (r.pos !== end) throw malformed("trailing bytes after CONNECT");
    return p;
  }
  if (version === undefined) throw new MqttDecodeError(0x82, "first packet must be CONNECT");
  let p: Packet;
  switch (type) {
    case 2:
      p = decodeConnack(r, version);
      break;
    case 3:
      return decodePublish(r, flags, version); // the payload takes the rest of the packet
    case 4:
      p = decodePubAck(r, "puback", version);
      break;
    case 5:
      p = decodePubAck(r, "pubrec", version);
      break;
    case 6:
      p = decodePubAck(r, "pubrel", version);
      break;
    case 7:
      p = decodePubAck(r, "pubcomp", version);
      break;
    case 8:
      p = decodeSubscribe(r, version);
      break;
    case 9:
      p = decodeSuback(r, version);
      break;
    case 10:
      p = decodeUnsubscribe(r, version);
      break;
    case 11:
      p = decodeUnsuback(r, version);
      break;
    case 12:
      p = PINGREQ;
      break;
    case 13:
      p = PINGRESP;
      break;
    case 14:
      p = decodeDisconnect(r, version);
      break;
    default:
      p = decodeAuth(r, version);
      break;
  }
  if (r.pos !== end) throw malformed("trailing bytes after packet");
  return p;
}

/**
 * Decodes exactly one whole packet from `bytes` (fixed header included). Anything short, longer
 * than its Remaining Length, or invalid yields `{ ok: false, error }`; nothing is thrown.
 * Binary fields and the PUBLISH payload are views into `bytes`.
 */
export function decodePacket(bytes: Uint8Array, options: DecodeOptions = {}): DecodeResult {
  const max = options.maxPacketSize ?? MAX_PACKET_SIZE;
  try {
    if (bytes.length < 2) throw malformed("packet too short");
    const len = readVarint(bytes, 1, bytes.length);
    if (len < 0) throw malformed(len === VARINT_INCOMPLETE ? "packet too short" : "malformed remaining length");
    const start = 1 + varintLength(len);
    if (start + len > max) throw new MqttDecodeError(0x95, "packet exceeds the maximum packet size");
    if (start + len !== bytes.length) throw malformed(start + len > bytes.length ? "packet too short" : "trailing bytes after packet");
    return { ok: true, packet: decodeBody(bytes[0] ?? 0, bytes, start, start + len, options.protocolVersion) };
  } catch (e) {
    return { ok: false, error: asDecodeError(e) };
  }
}

/**
 * Turns whatever a decode step threw into a MqttDecodeError. Anything but a MqttDecodeError is a
 * codec bug; it still must not crash the server, so it becomes a Malformed Packet (the fuzz
 * tests check that this path is never taken).
 */
export function asDecodeError(e: unknown): MqttDecodeError {
  if (e instanceof MqttDecodeError) return e;
  return new MqttDecodeError(0x81, `internal decoder error: ${String(e)}`);
}
