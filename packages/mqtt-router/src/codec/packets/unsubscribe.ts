import type { ByteReader } from "../byte-reader.js";
import { checkInt, stringByteLength } from "../byte-writer.js";
import { MqttDecodeError, MqttEncodeError, protocolError, quote } from "../errors.js";
import { finishPacket, startPacket } from "../frame.js";
import type { ProtocolVersion, UnsubscribePacket } from "../packet.js";
import { NO_PROPERTIES, PropertyContext, decodeProperties, propertiesLength, writeProperties } from "../properties.js";
import { isValidTopicFilter } from "../topic.js";
import { varintLength } from "../varint.js";

/** Decodes an UNSUBSCRIBE body: at least one valid topic filter [MQTT-3.10.3-2]. */
export function decodeUnsubscribe(r: ByteReader, version: ProtocolVersion): UnsubscribePacket {
  const packetId = r.u16();
  if (packetId === 0) throw protocolError("UNSUBSCRIBE packet identifier 0");
  const properties = version === 5 ? decodeProperties(r, PropertyContext.Unsubscribe) : NO_PROPERTIES;
  const topicFilters: string[] = [];
  while (r.remaining() > 0) {
    const filter = r.utf8();
    if (!isValidTopicFilter(filter, version)) {
      throw new MqttDecodeError(0x8f, `invalid topic filter ${quote(filter)}`);
    }
    topicFilters.push(filter);
  }
  if (topicFilters.length === 0) throw protocolError("UNSUBSCRIBE without topic filters");
  return { type: "unsubscribe", packetId, topicFilters, properties };
}

/** Encodes an UNSUBSCRIBE. Throws MqttEncodeError. */
export function encodeUnsubscribe(p: UnsubscribePacket, version: ProtocolVersion, maxPacketSize: number): Uint8Array {
  checkInt(p.packetId, 1, 0xffff, "packetId");
  if (p.topicFilters.length === 0) throw new MqttEncodeError(0x82, "UNSUBSCRIBE needs at least one topic filter");
  const propsLen = version === 5 ? propertiesLength(p.properties, PropertyContext.Unsubscribe) : 0;
  let len = 2 + (version === 5 ? varintLength(propsLen) + propsLen : 0);
  const lens: number[] = [];
  for (const f of p.topicFilters) {
    if (!isValidTopicFilter(f, version)) throw new MqttEncodeError(0x8f, `invalid topic filter ${quote(f)}`);
    const n = stringByteLength(f, "topicFilter");
    lens.push(n);
    len += 2 + n;
  }
  const w = startPacket(0xa2, len, maxPacketSize);
  w.u16(p.packetId);
  if (version === 5) writeProperties(w, p.properties, propsLen);
  p.topicFilters.forEach((f, i) => {
    w.utf8(f, lens[i] ?? 0);
  });
  return finishPacket(w);
}
