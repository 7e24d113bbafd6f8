import type { ByteReader } from "../byte-reader.js";
import { checkInt, stringByteLength } from "../byte-writer.js";
import { MqttDecodeError, MqttEncodeError, malformed, protocolError, quote } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ProtocolVersion, QoS, SubscribePacket, Subscription } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidTopicFilter, parseSharedFilter } from "../topic.js";
import { varintLength } from "../varint.js";

/**
 * Decodes a SUBSCRIBE body. Reserved option bits, QoS 3 and Retain Handling 3 are malformed
 * [MQTT-3.8.3-5]; no filters at all is a protocol error [MQTT-3.8.3-2]; an invalid filter is
 * Topic Filter invalid (0x8F); No Local on a shared subscription is a protocol error [MQTT-3.8.3-4].
 */
export function decodeSubscribe(r: ByteReader, version: ProtocolVersion): SubscribePacket {
  const packetId = r.u16();
  if (packetId === 0) throw protocolError("SUBSCRIBE packet identifier 0");
  const properties = version === 5 ? decodeProperties(r, PropertyContext.Subscribe) : NO_PROPERTIES;
  const subscriptions: Subscription[] = [];
  while (r.remaining() > 0) {
    const topicFilter = r.utf8();
    const options = r.u8();
    if ((options & (version === 5 ? 0xc0 : 0xfc)) !== 0) throw malformed("reserved subscription option bits set");
    const qos = options & 3;
    if (qos === 3) throw malformed("subscription QoS 3");
    const retainHandling = (options >> 4) & 3;
    if (retainHandling === 3) throw malformed("Retain Handling 3");
    if (!isValidTopicFilter(topicFilter, version)) {
      throw new MqttDecodeError(0x8f, `invalid topic filter ${quote(topicFilter)}`);
    }
    const noLocal = (options & 4) !== 0;
    if (noLocal && version === 5 && parseSharedFilter(topicFilter)) {
      throw protocolError("No Local on a shared subscription");
    }
    subscriptions.push({
      topicFilter,
      qos: qos as QoS,
      noLocal,
      retainAsPublished: (options & 8) !== 0,
      retainHandling: retainHandling as 0 | 1 | 2,
    });
  }
  if (subscriptions.length === 0) throw protocolError("SUBSCRIBE without topic filters");
  return { type: "subscribe", packetId, subscriptions, properties };
}

/** Encodes a SUBSCRIBE; 3.1.1 keeps only each filter's QoS. Throws MqttEncodeError. */
export function encodeSubscribe(p: SubscribePacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  checkInt(p.packetId, 1, 0xffff, "packetId");
  if (p.subscriptions.length === 0) throw new MqttEncodeError(0x82, "SUBSCRIBE needs at least one topic filter");
  const propsLen = version === 5 ? propertiesLength(p.properties, PropertyContext.Subscribe) : 0;
  let len = 2 + (version === 5 ? varintLength(propsLen) + propsLen : 0);
  const filterLens: number[] = [];
  for (const s of p.subscriptions) {
    if (!isValidTopicFilter(s.topicFilter, version)) throw new MqttEncodeError(0x8f, `invalid topic filter ${quote(s.topicFilter)}`);
    checkInt(s.qos, 0, 2, "qos");
    checkInt(s.retainHandling, 0, 2, "retainHandling");
    if (version === 5 && s.noLocal && parseSharedFilter(s.topicFilter)) {
      throw new MqttEncodeError(0x82, "No Local on a shared subscription");
    }
    const n = stringByteLength(s.topicFilter, "topicFilter");
    filterLens.push(n);
    len += 3 + n;
  }
  const w = startPacket(0x82, len, maxPacketSize);
  w.u16(p.packetId);
  if (version === 5) writeProperties(w, p.properties, propsLen);
  p.subscriptions.forEach((s, i) => {
    w.utf8(s.topicFilter, filterLens[i] ?? 0);
    w.u8(
      version === 5
        ? s.qos | (s.noLocal ? 4 : 0) | (s.retainAsPublished ? 8 : 0) | (s.retainHandling << 4)
        : s.qos,
    );
  });
  return finishPacket(w);
}
