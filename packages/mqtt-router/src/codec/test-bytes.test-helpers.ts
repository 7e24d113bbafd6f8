// Small byte helpers for the codec tests (test-only, not collected by vitest).
import { decodePacket } from "./decode.js";
import { encodePacket } from "./encode.js";
import type { Packet, ProtocolVersion } from "./packet.js";

export { hex, toHex } from "@handoff/test-kit";

/** Encodes or throws (for tests whose subject is not the encoder's refusal). */
export function encodeOk(p: Packet, protocolVersion: ProtocolVersion): Uint8Array {
  const r = encodePacket(p, { protocolVersion });
  if (!r.ok) throw r.error;
  return r.bytes;
}

/** Decodes or throws. */
export function decodeOk(b: Uint8Array, protocolVersion?: ProtocolVersion): Packet {
  const r = decodePacket(b, { protocolVersion });
  if (!r.ok) throw r.error;
  return r.packet;
}

/** The reason code of a refused decode, or undefined if it decoded. */
export function decodeError(b: Uint8Array, protocolVersion?: ProtocolVersion): number | undefined {
  const r = decodePacket(b, { protocolVersion });
  return r.ok ? undefined : r.error.reasonCode;
}

/** The reason code of a refused encode, or undefined if it encoded. */
export function encodeError(p: Packet, protocolVersion: ProtocolVersion, maxPacketSize?: number): number | undefined {
  const r = encodePacket(p, maxPacketSize === undefined ? { protocolVersion } : { protocolVersion, maxPacketSize });
  return r.ok ? undefined : r.error.reasonCode;
}
