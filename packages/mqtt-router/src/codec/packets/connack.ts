import type { ByteReader } from "../byte-reader.js";
import { MqttEncodeError, malformed } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ConnackPacket, ProtocolVersion } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidReasonCode } from "../reason-codes.js";
import { varintLength } from "../varint.js";

/** Decodes a CONNACK body. Reserved acknowledge flags and unknown codes are malformed. */
export function decodeConnack(r: ByteReader, version: ProtocolVersion): ConnackPacket {
  const ackFlags = r.u8();
  if ((ackFlags & 0xfe) !== 0) throw malformed("CONNACK reserved flags are set"); // [MQTT-3.2.2-1]
  const reasonCode = r.u8();
  if (version === 5 ? !isValidReasonCode("connack", reasonCode) : reasonCode > 5) {
    throw malformed(`invalid CONNACK code 0x${reasonCode.toString(16)}`);
  }
  const properties = version === 5 ? decodeProperties(r, PropertyContext.Connack) : NO_PROPERTIES;
  return { type: "connack", sessionPresent: (ackFlags & 1) === 1, reasonCode, properties };
}

/** Encodes a CONNACK; 3.1.1 takes return codes 0..5 and drops properties. Throws MqttEncodeError. */
export function encodeConnack(p: ConnackPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  if (version === 5 ? !isValidReasonCode("connack", p.reasonCode) : !(p.reasonCode >= 0 && p.reasonCode <= 5)) {
    throw new MqttEncodeError(0x81, `invalid CONNACK code ${p.reasonCode}`);
  }
  const propsLen = version === 5 ? propertiesLength(p.properties, PropertyContext.Connack) : 0;
  const len = 2 + (version === 5 ? varintLength(propsLen) + propsLen : 0);
  const w = startPacket(0x20, len, maxPacketSize);
  w.u8(p.sessionPresent ? 1 : 0);
  w.u8(p.reasonCode);
  if (version === 5) writeProperties(w, p.properties, propsLen);
  return finishPacket(w);
}
