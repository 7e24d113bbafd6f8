import type { ByteReader } from "../byte-reader.js";
import { MqttEncodeError, malformed } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { DisconnectPacket, ProtocolVersion } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidReasonCode } from "../reason-codes.js";
import { varintLength } from "../varint.js";

/**
 * Decodes a DISCONNECT body. 3.1.1 has none (trailing bytes are malformed); in MQTT 5 an absent
 * reason code means Normal disconnection and absent properties mean none.
 */
export function decodeDisconnect(r: ByteReader, version: ProtocolVersion): DisconnectPacket {
  let reasonCode = 0;
  let properties = NO_PROPERTIES;
  if (version === 5 && r.remaining() > 0) {
    reasonCode = r.u8();
    if (!isValidReasonCode("disconnect", reasonCode)) throw malformed(`invalid DISCONNECT reason code 0x${reasonCode.toString(16)}`);
    if (r.remaining() > 0) properties = decodeProperties(r, PropertyContext.Disconnect);
  }
  return { type: "disconnect", reasonCode, properties };
}

/** Encodes a DISCONNECT in its shortest form (3.1.1: no body). Throws MqttEncodeError. */
export function encodeDisconnect(p: DisconnectPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  if (version === 4) return finishPacket(startPacket(0xe0, 0, maxPacketSize));
  if (!isValidReasonCode("disconnect", p.reasonCode)) throw new MqttEncodeError(0x81, `invalid DISCONNECT reason code ${p.reasonCode}`);
  const propsLen = propertiesLength(p.properties, PropertyContext.Disconnect);
  const len = propsLen > 0 ? 1 + varintLength(propsLen) + propsLen : p.reasonCode !== 0 ? 1 : 0;
  const w = startPacket(0xe0, len, maxPacketSize);
  if (len > 0) w.u8(p.reasonCode);
  if (propsLen > 0) writeProperties(w, p.properties, propsLen);
  return finishPacket(w);
}
