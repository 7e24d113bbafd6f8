import type { ByteReader } from "../byte-reader.js";
import { checkInt, stringByteLength } from "../byte-writer.js";
import { MqttDecodeError, MqttEncodeError, malformed, protocolError } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ProtocolVersion, PublishPacket } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidTopicName } from "../topic.js";
import { varintLength } from "../varint.js";

/** Fixed-header flag bit of DUP. */
export const DUP_FLAG = 0x08;

/**
 * Decodes a PUBLISH body given its fixed-header flags. QoS 3 and DUP on QoS 0 are malformed
 * [MQTT-3.3.1-2], [MQTT-3.3.1-4]; a zero packet id is a protocol error [MQTT-2.2.1-3]; a topic with
 * wildcards is Topic Name invalid; an empty topic needs an MQTT 5 Topic Alias. The payload is a
 * view into `r.buf`.
 */
export function decodePublish(r: ByteReader, flags: number, version: ProtocolVersion): PublishPacket {
  const qos = (flags >> 1) & 3;
  if (qos === 3) throw malformed("PUBLISH QoS 3");
  const dup = (flags & DUP_FLAG) !== 0;
  if (dup && qos === 0) throw malformed("DUP set on a QoS 0 PUBLISH");
  const topic = r.utf8();
  let packetId = 0;
  if (qos > 0) {
    packetId = r.u16();
    if (packetId === 0) throw protocolError("PUBLISH packet identifier 0");
  }
  const properties = version === 5 ? decodeProperties(r, PropertyContext.Publish) : NO_PROPERTIES;
  if (topic.length === 0) {
    if (version === 4) throw new MqttDecodeError(0x90, "empty topic name");
    if (properties.topicAlias === undefined) throw protocolError("empty topic name without Topic Alias");
  } else if (!isValidTopicName(topic)) {
    throw new MqttDecodeError(0x90, "wildcard in topic name");
  }
  const payload = r.rest();
  const retain = (flags & 1) === 1;
  return qos === 0
    ? { type: "publish", qos: 0, retain, dup: false, topic, payload, properties }
    : { type: "publish", qos: qos as 1 | 2, retain, dup, topic, packetId, payload, properties };
}

/**
 * Encodes a PUBLISH (3.1.1 drops properties) after validating it: QoS, packet id present exactly
 * when QoS > 0, no DUP on QoS 0, topic syntax (empty only with an MQTT 5 Topic Alias), string
 * lengths, properties. Throws MqttEncodeError.
 */
export function encodePublish(p: PublishPacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  // Checked at run time as well as by the types: packets also come from untyped code (relays).
  const { qos, dup, packetId } = p as { readonly qos: number; readonly dup: boolean; readonly packetId?: number };
  checkInt(qos, 0, 2, "qos");
  if (qos === 0) {
    if (packetId !== undefined) throw new MqttEncodeError(0x82, "QoS 0 PUBLISH has no packet id");
    if (dup) throw new MqttEncodeError(0x81, "DUP must be 0 on QoS 0");
  } else {
    if (packetId === undefined) throw new MqttEncodeError(0x82, "QoS > 0 PUBLISH needs a packet id");
    checkInt(packetId, 1, 0xffff, "packetId");
  }
  if (!((p.payload as unknown) instanceof Uint8Array)) throw new MqttEncodeError(0x81, "payload must be a Uint8Array");
  const topicLen = stringByteLength(p.topic, "topic");
  if (topicLen === 0) {
    if (version === 4 || p.properties.topicAlias === undefined) {
      throw new MqttEncodeError(0x90, "empty topic name needs an MQTT 5 Topic Alias");
    }
  } else if (!isValidTopicName(p.topic)) {
    throw new MqttEncodeError(0x90, "wildcard in topic name");
  }
  const propsLen = version === 5 ? propertiesLength(p.properties, PropertyContext.Publish) : 0;
  const bodyLen =
    2 + topicLen + (qos > 0 ? 2 : 0) + (version === 5 ? varintLength(propsLen) + propsLen : 0) + p.payload.length;
  const w = startPacket(0x30 | (dup ? DUP_FLAG : 0) | (qos << 1) | (p.retain ? 1 : 0), bodyLen, maxPacketSize);
  w.utf8(p.topic, topicLen);
  if (packetId !== undefined) w.u16(packetId);
  if (version === 5) writeProperties(w, p.properties, propsLen);
  w.raw(p.payload);
  return finishPacket(w);
}

/** Offset of the packet id in an encoded QoS > 0 PUBLISH: after the fixed header and topic. */
export function publishPacketIdOffset(bytes: Uint8Array): number {
  let headerLength = 2;
  while (((bytes[headerLength - 1] ?? 0) & 0x80) !== 0) headerLength++;
  return headerLength + 2 + (((bytes[headerLength] ?? 0) << 8) | (bytes[headerLength + 1] ?? 0));
}
