import { describe, expect, it } from "vitest";
import { MqttEncodeError } from "./errors.js";
import type { PublishPacket, PublishQoS12Packet } from "./packet.js";
import { preparePublish, type PublishTemplate } from "./publish-template.js";
import { decodeOk, encodeOk } from "./test-bytes.test-helpers.js";

const packet: PublishQoS12Packet = {
  type: "publish",
  qos: 1,
  retain: false,
  dup: false,
  topic: "fan/out",
  packetId: 1,
  payload: Uint8Array.of(7, 7),
  properties: { messageExpiryInterval: 60 },
};

function template(p: PublishPacket): PublishTemplate {
  const r = preparePublish(p, 5);
  if (!r.ok) throw r.error;
  return r.template;
}

describe("PublishTemplate", () => {
  it("produces the same bytes as encoding with that packet id", () => {
    expect(template(packet).withPacketId(4242)).toEqual(encodeOk({ ...packet, packetId: 4242 }, 5));
  });

  it("sets DUP on a resend", () => {
    expect(decodeOk(template(packet).withPacketId(9, true), 5)).toEqual({ ...packet, packetId: 9, dup: true });
  });

  it("clears DUP when the template was built with it", () => {
    expect(decodeOk(template({ ...packet, dup: true }).withPacketId(9), 5)).toEqual({ ...packet, packetId: 9 });
  });

  it("leaves the shared template bytes untouched", () => {
    const t = template(packet);
    const before = t.bytes.slice();
    t.withPacketId(65_535, true);
    expect(t.bytes).toEqual(before);
  });

  it("patches the packet id of a PUBLISH whose remaining length takes three bytes", () => {
    const big = { ...packet, payload: new Uint8Array(70_000) };
    // Buffer.compare: vitest's deep equality is slow on 70 kB arrays.
    const got = template(big).withPacketId(513);
    expect(Buffer.compare(got, encodeOk({ ...big, packetId: 513 }, 5))).toBe(0);
  });

  it("shares one byte array for QoS 0 fan-out", () => {
    const { packetId: _id, ...rest } = packet;
    const qos0: PublishPacket = { ...rest, qos: 0, dup: false };
    expect(template(qos0).bytes).toEqual(encodeOk(qos0, 5));
  });

  it("refuses a packet id on a QoS 0 template", () => {
    const { packetId: _id, ...rest } = packet;
    expect(() => template({ ...rest, qos: 0, dup: false }).withPacketId(1)).toThrow(MqttEncodeError);
  });

  it("refuses packet id 0", () => {
    expect(() => template(packet).withPacketId(0)).toThrow(MqttEncodeError);
  });

  it("reports an invalid packet as an encode error", () => {
    const r = preparePublish({ ...packet, topic: "a/#" }, 5);
    expect(r.ok ? undefined : r.error.reasonCode).toBe(0x90);
  });
});
