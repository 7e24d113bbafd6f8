import { describe, expect, it } from "vitest";
import { PacketDecoder } from "./decoder.js";
import type { Packet, PublishPacket } from "./packet.js";
import { encodeOk, hex } from "./test-bytes.test-helpers.js";

const publish: PublishPacket = {
  type: "publish",
  qos: 1,
  retain: false,
  dup: false,
  topic: "t/1",
  packetId: 4,
  payload: Uint8Array.of(1, 2, 3),
  properties: {},
};
const connectV5 = hex("1010 00044d515454 05 02 003c 03 210005 0000");

function drain(d: PacketDecoder): Packet[] {
  const out: Packet[] = [];
  for (let item = d.next(); item !== undefined; item = d.next()) {
    if (!item.ok) throw item.error;
    out.push(item.packet);
  }
  return out;
}

describe("PacketDecoder", () => {
  it("decodes a packet fed one byte at a time", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    const out: Packet[] = [];
    for (const b of encodeOk(publish, 4)) {
      d.push(Uint8Array.of(b));
      out.push(...drain(d));
    }
    expect(out).toEqual([publish]);
  });

  it("decodes several packets sharing one chunk, in order", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    const one = encodeOk(publish, 4);
    const two = encodeOk({ ...publish, packetId: 5 }, 4);
    d.push(Uint8Array.from([...one, ...two, 0xc0, 0x00]));
    expect(drain(d)).toEqual([publish, { ...publish, packetId: 5 }, { type: "pingreq" }]);
  });

  it("returns undefined while a packet is incomplete", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    d.push(encodeOk(publish, 4).subarray(0, 5));
    expect(d.next()).toBeUndefined();
  });

  it("slices a payload that lies inside one chunk instead of copying it", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    const chunk = encodeOk(publish, 4);
    d.push(chunk);
    const [p] = drain(d) as PublishPacket[];
    expect(p?.payload.buffer).toBe(chunk.buffer);
  });

  it("refuses an announced 256 MiB packet from its header, buffering nothing", () => {
    const d = new PacketDecoder({ protocolVersion: 4, maxPacketSize: 1 << 20 });
    d.push(hex("30 ff ff ff 7f 00 01"));
    expect(d.next()).toMatchObject({ ok: false, error: { reasonCode: 0x95 } });
    expect(d.bufferedBytes).toBe(0);
  });

  it("reserves memory in proportion to the bytes received, not the announced length", () => {
    const d = new PacketDecoder({ protocolVersion: 4, maxPacketSize: 4 << 20 });
    d.push(hex("30 80 80 80 01 0001 61")); // announces a 2 MiB PUBLISH, sends 3 body bytes
    expect(d.next()).toBeUndefined();
    expect(d.reservedBytes).toBeLessThanOrEqual(64 * 1024 + 5);
  });

  it("assembles a packet larger than the first reservation", () => {
    const big: PublishPacket = { ...publish, payload: new Uint8Array(200_000).fill(7) };
    const bytes = encodeOk(big, 4);
    const d = new PacketDecoder({ protocolVersion: 4 });
    for (let at = 0; at < bytes.length; at += 10_000) d.push(bytes.subarray(at, at + 10_000));
    const [p] = drain(d) as PublishPacket[];
    expect(p?.payload.length).toBe(200_000);
    expect(p?.payload.every((b) => b === 7)).toBe(true);
  });

  it("refuses an oversize packet whose header arrives split", () => {
    const d = new PacketDecoder({ protocolVersion: 4, maxPacketSize: 100 });
    d.push(hex("30 ff"));
    d.push(hex("01"));
    expect(d.next()).toMatchObject({ ok: false, error: { reasonCode: 0x95 } });
  });

  it("accepts a packet of exactly the maximum size", () => {
    const bytes = encodeOk(publish, 4);
    const d = new PacketDecoder({ protocolVersion: 4, maxPacketSize: bytes.length });
    d.push(bytes);
    expect(drain(d)).toEqual([publish]);
  });

  it("refuses a packet before CONNECT when the version is not known", () => {
    const d = new PacketDecoder();
    d.push(hex("c000"));
    expect(d.next()).toMatchObject({ ok: false, error: { reasonCode: 0x82 } });
  });

  it("learns the protocol version from CONNECT", () => {
    const d = new PacketDecoder();
    d.push(connectV5);
    drain(d);
    expect(d.protocolVersion).toBe(5);
  });

  it("decodes the connection as 3.1.1 after an MQTT 3.1 CONNECT", () => {
    const d = new PacketDecoder();
    d.push(hex("1011 0006 4d5149736470 03 02 0000 0003 616263"));
    drain(d);
    expect(d.protocolVersion).toBe(4);
  });

  it("decodes packets after CONNECT in the same chunk with the learned version", () => {
    const d = new PacketDecoder();
    d.push(Uint8Array.from([...connectV5, ...encodeOk(publish, 5)]));
    expect(drain(d)[1]).toEqual(publish);
  });

  it("uses a version set explicitly for the packets that follow", () => {
    const d = new PacketDecoder();
    d.setProtocolVersion(5);
    d.push(encodeOk(publish, 5));
    expect(drain(d)).toEqual([publish]);
  });

  it("stays failed and ignores input after an error", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    d.push(hex("c100"));
    const first = d.next();
    d.push(hex("c000"));
    expect(d.next()).toBe(first);
    expect(d.error?.reasonCode).toBe(0x81);
  });

  it("reports the packets decoded before an error, then the error", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    d.push(hex("c000 c100"));
    expect(d.next()).toEqual({ ok: true, packet: { type: "pingreq" } });
    expect(d.next()?.ok).toBe(false);
  });

  it("refuses a remaining length with a fifth byte split across chunks", () => {
    const d = new PacketDecoder({ protocolVersion: 4 });
    for (const b of hex("30 ff ff ff ff 01")) d.push(Uint8Array.of(b));
    expect(d.next()).toMatchObject({ ok: false, error: { reasonCode: 0x81 } });
  });
});
