import type { ByteReader } from "../byte-reader.js";
import { checkInt } from "../byte-writer.js";
import { MqttEncodeError, malformed, protocolError } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ProtocolVersion, PubAckPacket } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidReasonCode } from "../reason-codes.js";
import { varintLength } from "../varint.js";

const FIRST_BYTE: Readonly<Record<PubAckPacket["type"], number>> = {
  puback: 0x40,
  pubrec: 0x50,
  pubrel: 0x62, // PUBREL's fixed-header flags are 0b0010 [MQTT-3.6.1-1]
  pubcomp: 0x70,
};

/**
 * Decodes PUBACK/PUBREC/PUBREL/PUBCOMP. In MQTT 5 the reason code and properties may be omitted
 * (Remaining Length 2 means success, 3 means no properties); in 3.1.1 only the packet id exists.
 */
export function decodePubAck(r: ByteReader, type: PubAckPacket["type"], version: ProtocolVersion): PubAckPacket {
  const packetId = r.u16();
  if (packetId === 0) throw protocolError(`${type} packet identifier 0`);
  let reasonCode = 0;
  let properties = NO_PROPERTIES;
  if (version === 5 && r.remaining() > 0) {
    reasonCode = r.u8();
    if (!isValidReasonCode(type, reasonCode)) throw malformed(`invalid ${type} reason code 0x${reasonCode.toString(16)}`);
    if (r.remaining() > 0) properties = decodeProperties(r, PropertyContext.PubAck);
  }
  return { type, packetId, reasonCode, properties };
}

/**
 * Encodes an acknowledgement in its shortest form. On 3.1.1 the reason code and properties do
 * not exist and are dropped. Throws MqttEncodeError.
 */
export function encodePubAck(p: PubAckPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  checkInt(p.packetId, 1, 0xffff, "packetId");
  const first = FIRST_BYTE[p.type];
  if (version === 4) {
    const w = startPacket(first, 2, maxPacketSize);
    w.u16(p.packetId);
    return finishPacket(w);
  }
  if (!isValidReasonCode(p.type, p.reasonCode)) throw new MqttEncodeError(0x81, `invalid ${p.type} reason code ${p.reasonCode}`);
  const propsLen = propertiesLength(p.properties, PropertyContext.PubAck);
  const len = propsLen > 0 ? 3 + varintLength(propsLen) + propsLen : p.reasonCode !== 0 ? 3 : 2;
  const w = startPacket(first, len, maxPacketSize);
  w.u16(p.packetId);
  if (len > 2) w.u8(p.reasonCode);
  if (propsLen > 0) writeProperties(w, p.properties, propsLen);
  return finishPacket(w);
}
