import { describe, expect, it } from "vitest";
import type { SubscribePacket, Subscription } from "../packet.js";
import { decodeOk, encodeError, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

const sub = (topicFilter: string, more: Partial<Subscription> = {}): Subscription => ({
  topicFilter,
  qos: 1,
  noLocal: false,
  retainAsPublished: false,
  retainHandling: 0,
  ...more,
});

describe("SUBSCRIBE", () => {
  it("encodes a 3.1.1 SUBSCRIBE with flags 0b0010", () => {
    const p: SubscribePacket = { type: "subscribe", packetId: 1, subscriptions: [sub("a/#")], properties: {} };
    expect(toHex(encodeOk(p, 4))).toBe("820800010003612f2301");
  });

  it("decodes all MQTT 5 subscription options", () => {
    // options 0b0010_1110: retain handling 2, retain as published, no local, QoS 2
    expect(decodeOk(hex("8207 0001 00 0001 61 2e"), 5)).toEqual({
      type: "subscribe",
      packetId: 1,
      subscriptions: [sub("a", { qos: 2, noLocal: true, retainAsPublished: true, retainHandling: 2 })],
      properties: {},
    });
  });

  it("keeps one Subscription Identifier", () => {
    const p: SubscribePacket = { type: "subscribe", packetId: 2, subscriptions: [sub("x")], properties: { subscriptionIdentifier: 300 } };
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("writes only the QoS in 3.1.1 options", () => {
    const p: SubscribePacket = { type: "subscribe", packetId: 1, subscriptions: [sub("a", { noLocal: true, retainHandling: 2 })], properties: {} };
    expect(toHex(encodeOk(p, 4)).endsWith("6101")).toBe(true);
  });

  it("accepts a shared subscription in MQTT 5", () => {
    const p: SubscribePacket = { type: "subscribe", packetId: 3, subscriptions: [sub("$share/g/a/+")], properties: {} };
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("refuses to encode an empty subscription list", () => {
    expect(encodeError({ type: "subscribe", packetId: 1, subscriptions: [], properties: {} }, 4)).toBe(0x82);
  });

  it("refuses to encode an invalid filter", () => {
    expect(encodeError({ type: "subscribe", packetId: 1, subscriptions: [sub("a/#/b")], properties: {} }, 4)).toBe(0x8f);
  });

  it("refuses to encode No Local on a shared subscription", () => {
    expect(encodeError({ type: "subscribe", packetId: 1, subscriptions: [sub("$share/g/a", { noLocal: true })], properties: {} }, 5)).toBe(0x82);
  });
});
