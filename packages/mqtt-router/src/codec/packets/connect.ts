import type { ByteReader } from "../byte-reader.js";
import { checkBinary, checkInt, stringByteLength } from "../byte-writer.js";
import { MqttDecodeError, MqttEncodeError, malformed, quote } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ConnectPacket, ConnectProtocolVersion, QoS, Will } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidTopicName } from "../topic.js";
import { varintLength } from "../varint.js";

const F_USERNAME = 0x80;
const F_PASSWORD = 0x40;
const F_WILL_RETAIN = 0x20;
const F_WILL_QOS = 0x18;
const F_WILL = 0x04;
const F_CLEAN = 0x02;
const F_RESERVED = 0x01;

/**
 * Decodes a CONNECT body. The protocol name and level select the format: "MQTT" 4 or 5, or
 * "MQIsdp" 3 (MQTT 3.1, decoded like 3.1.1 so the server can refuse it with return code 0x01).
 * Any other name or level is Unsupported Protocol Version (0x84).
 */
export function decodeConnect(r: ByteReader): ConnectPacket {
  const name = r.utf8();
  const level = r.u8();
  let version: ConnectProtocolVersion;
  if (name === "MQTT" && (level === 4 || level === 5)) version = level;
  else if (name === "MQIsdp" && level === 3) version = 3;
  else throw new MqttDecodeError(0x84, `unsupported protocol ${quote(name)} level ${level}`);

  const flags = r.u8();
  if ((flags & F_RESERVED) !== 0) throw malformed("CONNECT reserved flag is set"); // [MQTT-3.1.2-3]
  const willQos = (flags & F_WILL_QOS) >> 3;
  const hasWill = (flags & F_WILL) !== 0;
  if (willQos === 3) throw malformed("Will QoS 3");
  if (!hasWill && (willQos !== 0 || (flags & F_WILL_RETAIN) !== 0)) {
    throw malformed("Will QoS or Will Retain set without Will Flag"); // [MQTT-3.1.2-11], [MQTT-3.1.2-13]
  }
  const hasUsername = (flags & F_USERNAME) !== 0;
  const hasPassword = (flags & F_PASSWORD) !== 0;
  if (version !== 5 && hasPassword && !hasUsername) {
    throw malformed("password without username"); // [MQTT-3.1.2-22] (3.1.1 only)
  }
  const keepAlive = r.u16();
  const properties = version === 5 ? decodeProperties(r, PropertyContext.Connect) : NO_PROPERTIES;
  const clientId = r.utf8();

  let will: Will | undefined;
  if (hasWill) {
    const willProperties = version === 5 ? decodeProperties(r, PropertyContext.Will) : NO_PROPERTIES;
    const topic = r.utf8();
    if (!isValidTopicName(topic)) throw new MqttDecodeError(0x90, "invalid Will Topic");
    const payload = r.binary();
    will = { topic, payload, qos: willQos as QoS, retain: (flags & F_WILL_RETAIN) !== 0, properties: willProperties };
  }
  const username = hasUsername ? r.utf8() : undefined;
  const password = hasPassword ? r.binary() : undefined;

  return {
    type: "connect",
    protocolVersion: version,
    cleanStart: (flags & F_CLEAN) !== 0,
    keepAlive,
    clientId,
    ...(will === undefined ? {} : { will }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    properties,
  };
}

/** Encodes a CONNECT in the format its `protocolVersion` selects. Throws MqttEncodeError. */
export function encodeConnect(p: ConnectPacket, maxPacketSize: number): Uint8Array {
  checkInt(p.protocolVersion, 3, 5, "protocolVersion");
  const v5 = p.protocolVersion === 5;
  const protocolName = p.protocolVersion === 3 ? "MQIsdp" : "MQTT";
  checkInt(p.keepAlive, 0, 0xffff, "keepAlive");
  if (!v5 && p.password !== undefined && p.username === undefined) {
    throw new MqttEncodeError(0x81, "MQTT 3.1.1 does not allow a password without a username");
  }
  const propsLen = v5 ? propertiesLength(p.properties, PropertyContext.Connect) : 0;
  const clientIdLen = stringByteLength(p.clientId, "clientId");
  let len = 2 + protocolName.length + 1 + 1 + 2 + 2 + clientIdLen;
  if (v5) len += varintLength(propsLen) + propsLen;

  let flags = p.cleanStart ? F_CLEAN : 0;
  const will = p.will;
  let willPropsLen = 0;
  let willTopicLen = 0;
  if (will !== undefined) {
    if (!isValidTopicName(will.topic)) throw new MqttEncodeError(0x90, "invalid Will Topic");
    checkInt(will.qos, 0, 2, "will.qos");
    checkBinary(will.payload, "will.payload");
    willTopicLen = stringByteLength(will.topic, "will.topic");
    if (v5) {
      willPropsLen = propertiesLength(will.properties, PropertyContext.Will);
      len += varintLength(willPropsLen) + willPropsLen;
    }
    len += 2 + willTopicLen + 2 + will.payload.length;
    flags |= F_WILL | (will.qos << 3) | (will.retain ? F_WILL_RETAIN : 0);
  }
  let usernameLen = 0;
  if (p.username !== undefined) {
    usernameLen = stringByteLength(p.username, "username");
    len += 2 + usernameLen;
    flags |= F_USERNAME;
  }
  if (p.password !== undefined) {
    checkBinary(p.password, "password");
    len += 2 + p.password.length;
    flags |= F_PASSWORD;
  }

  const w = startPacket(0x10, len, maxPacketSize);
  w.utf8(protocolName, protocolName.length);
  w.u8(p.protocolVersion);
  w.u8(flags);
  w.u16(p.keepAlive);
  if (v5) writeProperties(w, p.properties, propsLen);
  w.utf8(p.clientId, clientIdLen);
  if (will !== undefined) {
    if (v5) writeProperties(w, will.properties, willPropsLen);
    w.utf8(will.topic, willTopicLen);
    w.binary(will.payload);
  }
  if (p.username !== undefined) w.utf8(p.username, usernameLen);
  if (p.password !== undefined) w.binary(p.password);
  return finishPacket(w);
}
