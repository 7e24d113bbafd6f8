// Unbounded broker state (issue 17, item 7): sessions, subscriptions per session and retained
// messages are capped by settings, answered with the protocol's reason codes, counted in /metrics,
// and a bystander keeps being served. Over real sockets, against a server started from a config file.
import type { Packet } from "@handoff/mqtt-router/codec";
import { describe, expect, it } from "vitest";
import { roundTrip } from "./bystander.test-helpers.js";
import { collect, until } from "./harness.test-helpers.js";
import { bytesOf, connectPacket, rawTcp, type RawClient } from "./raw-client.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();

const is =
  (type: Packet["type"]) =>
  (p: Packet): boolean =>
    p.type === type;

function start(limits: string) {
  return fx.start((d) => ["--storage", "memory", "--config", `${d}/broker.yaml`], { "broker.yaml": `limits: { ${limits} }\n` });
}

async function limitMetric(httpPort: number, limit: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${String(httpPort)}/metrics`)).text();
  const name = `handoff_broker_limits_exceeded_total{limit="${limit}"} `;
  const line = text.split("\n").find((l) => l.startsWith(name));
  return line === undefined ? 0 : Number(line.slice(name.length));
}

async function connected(port: number, clientId: string): Promise<RawClient> {
  const c = await rawTcp(port);
  c.send(connectPacket(clientId));
  expect(await c.next(is("connack"))).toMatchObject({ reasonCode: 0 });
  return c;
}

describe("limits.maxSessions", () => {
  it("refuses a CONNECT that would create one session too many with CONNACK 0x97 (3.1.1: 3), lets existing sessions resume, and counts it", async () => {
    const s = await start("maxSessions: 3");
    const port = s.ports.mqtt ?? 0;
    const url = `mqtt://127.0.0.1:${String(port)}`;
    const bystander = await fx.connect(url, { clientId: "bystander" });
    await fx.connect(url, { clientId: "kept", clean: false, properties: { sessionExpiryInterval: 3600 } }).then((c) => c.endAsync());
    await connected(port, "third");
    const v5 = await rawTcp(port);
    v5.send(connectPacket("fourth"));
    expect(await v5.next(is("connack"))).toMatchObject({ reasonCode: 0x97 });
    await v5.closed;
    await expect(fx.connect(url, { clientId: "fourth-311", protocolVersion: 4 })).rejects.toMatchObject({ code: 3 });
    // A session that exists comes back, over the cap or not.
    const resumed = await fx.connect(url, { clientId: "kept", clean: false, properties: { sessionExpiryInterval: 3600 } });
    expect(resumed.connected).toBe(true);
    expect(await limitMetric(s.ports.http ?? 0, "sessions")).toBe(2);
    await roundTrip(bystander);
  });
});

describe("limits.maxSubscriptionsPerSession", () => {
  it("answers SUBACK 0x97 for each new filter past the cap, keeps the ones granted, and counts it", async () => {
    const s = await start("maxSubscriptionsPerSession: 2");
    const port = s.ports.mqtt ?? 0;
    const bystander = await fx.connect(`mqtt://127.0.0.1:${String(port)}`, { clientId: "bystander" });
    const c = await connected(port, "greedy");
    const sub = (topicFilter: string) => ({ topicFilter, qos: 1 as const, noLocal: false, retainAsPublished: false, retainHandling: 0 as const });
    c.send({ type: "subscribe", packetId: 1, subscriptions: [sub("a"), sub("b"), sub("c"), sub("d")], properties: {} });
    expect(await c.next(is("suback"))).toMatchObject({ reasonCodes: [1, 1, 0x97, 0x97] });
    c.send({ type: "subscribe", packetId: 2, subscriptions: [sub("a")], properties: {} });
    expect(await c.next((p) => p.type === "suback" && p.packetId === 2)).toMatchObject({ reasonCodes: [1] });
    await bystander.publishAsync("b", "to b", { qos: 1 });
    await bystander.publishAsync("c", "to c", { qos: 1 });
    await c.next(is("publish"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(c.received.filter((p) => p.type === "publish").map((p) => p.topic)).toEqual(["b"]);
    expect(await limitMetric(s.ports.http ?? 0, "subscriptions-per-session")).toBe(2);
    await roundTrip(bystander);
  });
});

describe("limits.maxRetainedMessages", () => {
  it("delivers a retained message for a new topic past the cap but does not store it, says so in the PUBACK's reason string, and counts it", async () => {
    // The broker's own $SYS topics are retained too: the cap leaves room for them and two more.
    const probe = await start("maxRetainedMessages: 1000");
    const sys = probe.broker.router.retainedCount;
    await probe.close();
    fx.closed();
    const s = await start(`maxRetainedMessages: ${String(sys + 2)}`);
    const port = s.ports.mqtt ?? 0;
    const url = `mqtt://127.0.0.1:${String(port)}`;
    const live = await fx.connect(url, { clientId: "live" });
    await live.subscribeAsync("r/#", { qos: 1 });
    const publisher = await connected(port, "publisher");
    for (const [i, topic] of ["r/1", "r/2", "r/3"].entries()) {
      publisher.send({ type: "publish", topic, qos: 1, packetId: i + 1, retain: true, dup: false, payload: new Uint8Array([1]), properties: {} });
    }
    const acks = await Promise.all([1, 2, 3].map((id) => publisher.next((p) => p.type === "puback" && p.packetId === id)));
    expect(acks.map((a) => (a.type === "puback" ? [a.reasonCode, a.properties.reasonString] : []))).toEqual([
      [0, undefined],
      [0, undefined],
      [0, "delivered but not retained: retained message limit reached"],
    ]);
    await until(() => collect(live).length === 3, 5000, "every message delivered live");
    const late = await fx.connect(url, { clientId: "late" });
    await late.subscribeAsync("r/#", { qos: 1 });
    await until(() => collect(late).length === 2, 5000, "the stored retained messages");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(collect(late).map((m) => m.topic).sort()).toEqual(["r/1", "r/2"]);
    expect(await limitMetric(s.ports.http ?? 0, "retained-messages")).toBe(1);
    await roundTrip(live);
  });
});

describe("limits.maxRetainedBytes", () => {
  it("delivers a retained message that would pass the bytes but does not store it", async () => {
    const s = await start("maxRetainedBytes: 20000");
    const port = s.ports.mqtt ?? 0;
    const url = `mqtt://127.0.0.1:${String(port)}`;
    const publisher = await fx.connect(url, { clientId: "publisher" });
    await publisher.publishAsync("big", Buffer.alloc(30_000), { qos: 1, retain: true });
    await publisher.publishAsync("small", "x", { qos: 1, retain: true });
    const late = await fx.connect(url, { clientId: "late" });
    await late.subscribeAsync(["big", "small"], { qos: 1 });
    await until(() => collect(late).length === 1, 5000, "the small retained message");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(collect(late).map((m) => m.topic)).toEqual(["small"]);
    expect(await limitMetric(s.ports.http ?? 0, "retained-bytes")).toBe(1);
    await roundTrip(late);
  });
});

describe("what a queued message holds", () => {
  it("owns its payload and correlation data: neither is a view pinning the received chunk", async () => {
    const s = await start("maxQueuedMessages: 10");
    const port = s.ports.mqtt ?? 0;
    const offline = await fx.connect(`mqtt://127.0.0.1:${String(port)}`, { clientId: "offline", clean: false, properties: { sessionExpiryInterval: 3600 } });
    await offline.subscribeAsync("q", { qos: 1 });
    await offline.endAsync();
    const publisher = await connected(port, "publisher");
    // One write of 64 KiB with the PUBLISH in its middle, so the broker reads it as one big chunk.
    const correlationData = new Uint8Array([1, 2, 3]);
    const filler = new Uint8Array(32 * 1024).map((_, i) => (i % 2 === 0 ? 0xc0 : 0)); // PINGREQs
    const publish = bytesOf({ type: "publish", topic: "q", qos: 1, packetId: 1, retain: false, dup: false, payload: new Uint8Array([9]), properties: { correlationData } });
    publisher.sendBytes(Buffer.concat([filler, publish, filler]));
    await publisher.next(is("puback"));
    const queued = [...(s.broker.router.session("offline")?.queue.queued() ?? [])];
    expect(queued).toHaveLength(1);
    const message = queued[0]?.value.message;
    expect(message?.properties.correlationData).toEqual(correlationData);
    expect(message?.properties.correlationData?.buffer.byteLength).toBe(3);
    expect(message?.payload.buffer.byteLength).toBe(1);
  });
});
