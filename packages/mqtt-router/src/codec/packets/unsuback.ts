import type { ByteReader } from "../byte-reader.js";
import { checkInt } from "../byte-writer.js";
import { MqttEncodeError, malformed, protocolError } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ProtocolVersion, UnsubackPacket } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidReasonCode } from "../reason-codes.js";
import { varintLength } from "../varint.js";

/** Decodes an UNSUBACK body: MQTT 5 carries at least one reason code, 3.1.1 none. */
export function decodeUnsuback(r: ByteReader, version: ProtocolVersion): UnsubackPacket {
  const packetId = r.u16();
  if (packetId === 0) throw protocolError("UNSUBACK packet identifier 0");
  if (version === 4) return { type: "unsuback", packetId, reasonCodes: [], properties: NO_PROPERTIES };
  const properties = decodeProperties(r, PropertyContext.Unsuback);
  const reasonCodes: number[] = [];
  while (r.remaining() > 0) {
    const code = r.u8();
    if (!isValidReasonCode("unsuback", code)) throw malformed(`invalid UNSUBACK code 0x${code.toString(16)}`);
    reasonCodes.push(code);
  }
  if (reasonCodes.length === 0) throw protocolError("UNSUBACK without reason codes");
  return { type: "unsuback", packetId, reasonCodes, properties };
}

/** Encodes an UNSUBACK (3.1.1 drops reason codes and properties). Throws MqttEncodeError. */
export function encodeUnsuback(p: UnsubackPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  checkInt(p.packetId, 1, 0xffff, "packetId");
  if (version === 4) {
    const w = startPacket(0xb0, 2, maxPacketSize);
    w.u16(p.packetId);
    return finishPacket(w);
  }
  if (p.reasonCodes.length === 0) throw new MqttEncodeError(0x82, "UNSUBACK needs at least one reason code");
  for (const code of p.reasonCodes) {
    if (!isValidReasonCode("unsuback", code)) throw new MqttEncodeError(0x81, `invalid UNSUBACK code ${code}`);
  }
  const propsLen = propertiesLength(p.properties, PropertyContext.Unsuback);
  const w = startPacket(0xb0, 2 + varintLength(propsLen) + propsLen + p.reasonCodes.length, maxPacketSize);
  w.u16(p.packetId);
  writeProperties(w, p.properties, propsLen);
  for (const code of p.reasonCodes) w.u8(code);
  return finishPacket(w);
}
