import type { ByteReader } from "../byte-reader.js";
import { MqttEncodeError, malformed } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { AuthPacket, ProtocolVersion } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidReasonCode } from "../reason-codes.js";
import { varintLength } from "../varint.js";

/** Decodes an AUTH body (MQTT 5 only; packet type 15 is reserved, hence malformed, in 3.1.1). */
export function decodeAuth(r: ByteReader, version: ProtocolVersion): AuthPacket {
  if (version === 4) throw malformed("AUTH does not exist in MQTT 3.1.1");
  let reasonCode = 0;
  let properties = NO_PROPERTIES;
  if (r.remaining() > 0) {
    reasonCode = r.u8();
    if (!isValidReasonCode("auth", reasonCode)) throw malformed(`invalid AUTH reason code 0x${reasonCode.toString(16)}`);
    if (r.remaining() > 0) properties = decodeProperties(r, PropertyContext.Auth);
  }
  return { type: "auth", reasonCode, properties };
}

/** Encodes an AUTH (empty body for success without properties). Throws MqttEncodeError. */
export function encodeAuth(p: AuthPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  if (version === 4) throw new MqttEncodeError(0x82, "AUTH does not exist in MQTT 3.1.1");
  if (!isValidReasonCode("auth", p.reasonCode)) throw new MqttEncodeError(0x81, `invalid AUTH reason code ${p.reasonCode}`);
  const propsLen = propertiesLength(p.properties, PropertyContext.Auth);
  // Reason code and property length are omitted together or written together.
  const len = propsLen > 0 || p.reasonCode !== 0 ? 1 + varintLength(propsLen) + propsLen : 0;
  const w = startPacket(0xf0, len, maxPacketSize);
  if (len > 0) {
    w.u8(p.reasonCode);
    writeProperties(w, p.properties, propsLen);
  }
  return finishPacket(w);
}
