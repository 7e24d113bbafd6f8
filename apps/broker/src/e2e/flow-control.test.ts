// Flow control end to end (docs/INVARIANTS.md router invariant 8, issue #17.8): a flood into one reading
// subscriber slows its publishers instead of dropping what they were acknowledged; a subscriber
// that stops reading is cut off (stall budget, buffer cap) while a healthy one keeps receiving.
import { connect, type Socket } from "node:net";
import { PacketDecoder, encodePacket, type Packet } from "@handoff/mqtt-router/codec";
import { ManualClock } from "@handoff/seqlog";
import { afterEach, describe, expect, it } from "vitest";
import { startBroker, until, type Harness } from "./harness.test-helpers.js";

let harness: Harness | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await harness?.close();
  harness = undefined;
});

const encode = (packet: Packet): Uint8Array => {
  const r = encodePacket(packet, { protocolVersion: 4 });
  if (!r.ok) throw r.error;
  return r.bytes;
};

/** A bare 3.1.1 client: it knows no Receive Maximum, so nothing but the broker paces its floods. */
async function raw(port: number, clientId: string, onPacket: (p: Packet) => void = () => undefined, cleanStart = true): Promise<Socket> {
  const socket = connect({ host: "127.0.0.1", port });
  sockets.push(socket);
  const decoder = new PacketDecoder({ protocolVersion: 4 });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      decoder.push(chunk);
      for (let r = decoder.next(); r !== undefined; r = decoder.next()) {
        if (!r.ok) throw r.error;
        if (r.packet.type === "connack") resolve();
        else onPacket(r.packet);
      }
    });
    socket.write(encode({ type: "connect", protocolVersion: 4, keepAlive: 0, clientId, properties: {}, cleanStart }));
  });
  return socket;
}

function subscribePacket(filter: string): Uint8Array {
  return encode({ type: "subscribe", packetId: 1, subscriptions: [{ topicFilter: filter, qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }], properties: {} });
}

function flood(topic: string, from: number, count: number, payloadBytes = 16): Uint8Array {
  const packets = Array.from({ length: count }, (_, i) => {
    const payload = new Uint8Array(payloadBytes);
    new DataView(payload.buffer).setUint32(0, from + i);
    return encode({ type: "publish", topic, qos: 1, retain: false, dup: false, packetId: (from + i) % 65_535 + 1, payload, properties: {} });
  });
  return Buffer.concat(packets);
}

describe("flow control", () => {
  it("ends a QoS 1 flood into one reading subscriber with nothing dropped and every acknowledged message delivered", async () => {
    harness = await startBroker({ router: { queueLimits: { maxCount: 100 } } });
    const sub = await harness.client({ clientId: "sink" });
    await sub.subscribeAsync("flood/+", { qos: 1 });
    const got = new Map<string, number[]>();
    sub.on("message", (topic, payload) => {
      got.set(topic, [...(got.get(topic) ?? []), payload.readUInt32BE(0)]);
    });
    const PUBLISHERS = 5;
    const EACH = 400;
    const acked = new Map<string, number>();
    for (let p = 0; p < PUBLISHERS; p++) {
      const topic = `flood/${String(p)}`;
      const pub = await raw(harness.tcpPort, `pub-${String(p)}`, (packet) => {
        if (packet.type === "puback") acked.set(topic, (acked.get(topic) ?? 0) + 1);
      });
      pub.write(flood(topic, 0, EACH)); // all at once: far more than the subscriber's queue holds
    }
    const total = (m: Map<string, unknown[] | number>): number => [...m.values()].reduce<number>((n, v) => n + (typeof v === "number" ? v : v.length), 0);
    await until(() => total(acked) === PUBLISHERS * EACH && total(got) === PUBLISHERS * EACH, 20_000, "every message acknowledged and delivered");
    expect(harness.broker.router.stats.droppedTotal).toBe(0);
    for (let p = 0; p < PUBLISHERS; p++) expect(got.get(`flood/${String(p)}`)).toEqual(Array.from({ length: EACH }, (_, i) => i));
  });

  it("keeps delivering to a held publisher that floods a topic it subscribes to, so it never waits for itself", async () => {
    harness = await startBroker({ router: { queueLimits: { maxCount: 40 } }, stallMs: 60_000 });
    let echoed = 0;
    let acked = 0;
    const acks: number[] = [];
    const client = await raw(harness.tcpPort, "echo", (packet) => {
      if (packet.type === "publish" && packet.qos === 1) {
        echoed += 1;
        acks.push(packet.packetId);
        queueMicrotask(() => {
          for (const id of acks.splice(0)) client.write(encode({ type: "puback", packetId: id, reasonCode: 0, properties: {} }));
        });
      } else if (packet.type === "puback") acked += 1;
    });
    client.write(subscribePacket("echo"));
    await until(() => harness?.broker.router.subscriptionCount === 1, 5000, "the subscription");
    client.write(flood("echo", 0, 300));
    await until(() => echoed === 300 && acked === 300, 20_000, "every message echoed and acknowledged");
    expect(harness.broker.router.stats.droppedTotal).toBe(0);
  });

  it("disconnects a subscriber that never reads once it holds publishers back past the stall budget, and a healthy one keeps receiving", async () => {
    // The broker's clock is the test's: the stall budget passes only when the test moves it, at a
    // moment when the stuck subscriber holds the publisher back and the healthy one does not, so a
    // loaded machine's pause can never make the healthy one look stalled.
    const clock = new ManualClock(Date.now());
    harness = await startBroker({ router: { queueLimits: { maxCount: 60 } }, outboundInflight: 10, stallMs: 300, clock });
    const healthy = await harness.client({ clientId: "healthy" });
    await healthy.subscribeAsync("feed", { qos: 1 });
    const stuck = await raw(harness.tcpPort, "stuck", undefined, false); // its session outlives the connection
    stuck.write(subscribePacket("feed"));
    await until(() => harness?.broker.router.subscriptionCount === 2, 5000, "both subscriptions");
    stuck.pause(); // never reads again: never acknowledges a delivery
    const got: number[] = [];
    healthy.on("message", (_topic, payload) => got.push(payload.readUInt32BE(0)));
    let acked = 0;
    const pub = await raw(harness.tcpPort, "pub", (packet) => {
      if (packet.type === "puback") acked += 1;
    });
    pub.write(flood("feed", 0, 300));
    const broker = harness.broker;
    await until(() => {
      if (broker.router.backlogged("stuck") && !broker.router.backlogged("healthy")) {
        clock.advance(300);
        broker.tick();
      }
      return broker.counters.stalledSubscribersDisconnected > 0;
    }, 5000, "the stuck subscriber cut off");
    await until(() => acked === 300 && got.length === 300, 20_000, "the healthy subscriber to get everything");
    expect(got).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(harness.broker.counters.stalledSubscribersDisconnected).toBe(1);
    // Offline, the stuck session's queue is bounded by its limits; nothing beyond them is held.
    expect(harness.broker.router.session("stuck")?.connected).toBe(false);
    expect(harness.broker.router.session("stuck")?.queue.count).toBeLessThanOrEqual(60);
  });

  it("drops a client whose unsent output passes the buffer cap, and a healthy one keeps receiving", async () => {
    harness = await startBroker({ maxClientBuffer: 256 * 1024, stallMs: 60_000 });
    const healthy = await harness.client({ clientId: "healthy" });
    await healthy.subscribeAsync("big", { qos: 1 });
    const stuck = await raw(harness.tcpPort, "stuck");
    stuck.write(subscribePacket("big"));
    await until(() => harness?.broker.router.subscriptionCount === 2, 5000, "both subscriptions");
    stuck.pause();
    let got = 0;
    healthy.on("message", () => (got += 1));
    const pub = await raw(harness.tcpPort, "pub");
    // 100 x 128 KiB: more than loopback's socket buffers take, so the broker's side fills up.
    for (let i = 0; i < 100; i++) pub.write(flood("big", i, 1, 128 * 1024));
    await until(() => got === 100, 20_000, "the healthy subscriber to get everything");
    expect(harness.broker.counters.slowClientsDropped).toBe(1);
    expect(harness.broker.router.session("stuck")).toBeUndefined(); // a clean session ends with its connection
  });
});
