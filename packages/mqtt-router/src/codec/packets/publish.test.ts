import { describe, expect, it } from "vitest";
import type { PublishPacket, PublishQoS12Packet } from "../packet.js";
import { decodeError, decodeOk, encodeError, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

const qos1: PublishQoS12Packet = {
  type: "publish",
  qos: 1,
  retain: false,
  dup: false,
  topic: "a/b",
  packetId: 10,
  payload: new TextEncoder().encode("hi"),
  properties: {},
};

describe("PUBLISH", () => {
  it("encodes a 3.1.1 QoS 1 PUBLISH to the expected bytes", () => {
    expect(toHex(encodeOk(qos1, 4))).toBe("32090003612f62000a6869");
  });

  it("decodes a 3.1.1 QoS 1 PUBLISH", () => {
    expect(decodeOk(hex("32090003612f62000a6869"), 4)).toEqual(qos1);
  });

  it("encodes an MQTT 5 PUBLISH with an empty property block", () => {
    expect(toHex(encodeOk(qos1, 5))).toBe("320a0003612f62000a006869");
  });

  it("returns the payload as a view into the received bytes", () => {
    const bytes = hex("32090003612f62000a6869");
    const p = decodeOk(bytes, 4) as PublishPacket;
    expect(p.payload.buffer).toBe(bytes.buffer);
    expect(p.payload.byteOffset).toBe(9);
  });

  it("decodes retain and DUP flags", () => {
    expect(decodeOk(hex("3b090003612f62000a6869"), 4)).toMatchObject({ dup: true, retain: true, qos: 1 });
  });

  it("accepts an empty topic with a Topic Alias in MQTT 5", () => {
    const p: PublishPacket = { ...qos1, topic: "", properties: { topicAlias: 3 } };
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("accepts an empty payload", () => {
    const p: PublishPacket = { type: "publish", qos: 0, retain: true, dup: false, topic: "t", payload: new Uint8Array(), properties: {} };
    expect(decodeOk(encodeOk(p, 4), 4)).toEqual(p);
  });

  it("keeps repeated Subscription Identifiers in order", () => {
    const p: PublishPacket = { ...qos1, properties: { subscriptionIdentifiers: [7, 1, 268_435_455] } };
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("refuses to encode QoS 1 without a packet id", () => {
    const { packetId: _id, ...noId } = qos1;
    expect(encodeError(noId as unknown as PublishPacket, 4)).toBe(0x82);
  });

  it("refuses to encode packet id 0", () => {
    expect(encodeError({ ...qos1, packetId: 0 }, 4)).toBe(0x81);
  });

  it("refuses to encode a packet id on QoS 0", () => {
    expect(encodeError({ ...qos1, qos: 0 } as unknown as PublishPacket, 4)).toBe(0x82);
  });

  it("refuses to encode a wildcard topic", () => {
    expect(encodeError({ ...qos1, topic: "a/+" }, 4)).toBe(0x90);
  });

  it("refuses to encode a topic longer than 65535 bytes", () => {
    expect(encodeError({ ...qos1, topic: "x".repeat(65_536) }, 4)).toBe(0x81);
  });

  it("refuses to encode a packet larger than the given maximum", () => {
    expect(encodeError({ ...qos1, payload: new Uint8Array(100) }, 4, 64)).toBe(0x95);
  });

  it("refuses to decode a QoS 2 PUBLISH with packet id 0", () => {
    expect(decodeError(hex("3408 0003612f62 0000 68"), 4)).toBe(0x82);
  });
});
