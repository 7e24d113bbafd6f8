import type { ByteReader } from "../byte-reader.js";
import { checkInt } from "../byte-writer.js";
import { MqttEncodeError, malformed, protocolError } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ProtocolVersion, SubackPacket } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidReasonCode, validSubackReturnCodesV4 } from "../reason-codes.js";
import { varintLength } from "../varint.js";

function validCode(code: number, version: ProtocolVersion): boolean {
  return version === 5 ? isValidReasonCode("suback", code) : validSubackReturnCodesV4.has(code);
}

/** Decodes a SUBACK body: at least one reason code, each one the spec allows. */
export function decodeSuback(r: ByteReader, version: ProtocolVersion): SubackPacket {
  const packetId = r.u16();
  if (packetId === 0) throw protocolError("SUBACK packet identifier 0");
  const properties = version === 5 ? decodeProperties(r, PropertyContext.Suback) : NO_PROPERTIES;
  const reasonCodes: number[] = [];
  while (r.remaining() > 0) {
    const code = r.u8();
    if (!validCode(code, version)) throw malformed(`invalid SUBACK code 0x${code.toString(16)}`);
    reasonCodes.push(code);
  }
  if (reasonCodes.length === 0) throw protocolError("SUBACK without reason codes");
  return { type: "suback", packetId, reasonCodes, properties };
}

/** Encodes a SUBACK (3.1.1: return codes 0, 1, 2, 0x80; no properties). Throws MqttEncodeError. */
export function encodeSuback(p: SubackPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  checkInt(p.packetId, 1, 0xffff, "packetId");
  if (p.reasonCodes.length === 0) throw new MqttEncodeError(0x82, "SUBACK needs at least one reason code");
  for (const code of p.reasonCodes) {
    if (!validCode(code, version)) throw new MqttEncodeError(0x81, `invalid SUBACK code ${code}`);
  }
  const propsLen = version === 5 ? propertiesLength(p.properties, PropertyContext.Suback) : 0;
  const len = 2 + (version === 5 ? varintLength(propsLen) + propsLen : 0) + p.reasonCodes.length;
  const w = startPacket(0x90, len, maxPacketSize);
  w.u16(p.packetId);
  if (version === 5) writeProperties(w, p.properties, propsLen);
  for (const code of p.reasonCodes) w.u8(code);
  return finishPacket(w);
}
