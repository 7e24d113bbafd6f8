// MQTT 5 features end to end: shared subscriptions, topic aliases, flow control, will delay,
// WebSocket listener, malformed bytes from a raw socket.
import { connect } from "node:net";
import { ManualClock } from "@handoff/seqlog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, startBroker, until, type Harness } from "./harness.test-helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await startBroker();
});
afterEach(async () => {
  await h.close();
});

describe("MQTT 5 features over real sockets", () => {
  it("spreads a shared subscription's messages over its members", async () => {
    const a = await h.client({ clientId: "a" });
    const b = await h.client({ clientId: "b" });
    await a.subscribeAsync("$share/workers/jobs", { qos: 1 });
    await b.subscribeAsync("$share/workers/jobs", { qos: 1 });
    const pub = await h.client({ clientId: "pub" });
    for (let i = 0; i < 10; i++) await pub.publishAsync("jobs", String(i), { qos: 1 });
    const ga = collect(a);
    const gb = collect(b);
    await until(() => ga.length + gb.length === 10);
    expect(ga.length).toBeGreaterThan(0);
    expect(gb.length).toBeGreaterThan(0);
    expect(new Set([...ga, ...gb].map((m) => m.payload)).size).toBe(10);
  });

  it("resolves inbound topic aliases", async () => {
    const sub = await h.client({ clientId: "sub" });
    await sub.subscribeAsync("alias/target", { qos: 1 });
    const pub = await h.client({ clientId: "pub", properties: { topicAliasMaximum: 0 } });
    await pub.publishAsync("alias/target", "first", { qos: 1, properties: { topicAlias: 1 } });
    await pub.publishAsync("", "second", { qos: 1, properties: { topicAlias: 1 } });
    const got = collect(sub);
    await until(() => got.length === 2);
    expect(got.map((m) => [m.topic, m.payload])).toEqual([
      ["alias/target", "first"],
      ["alias/target", "second"],
    ]);
  });

  it("sends outbound topic aliases within the subscriber's maximum, rebinding the least recently used, and MQTT.js resolves every topic", async () => {
    const sub = await h.client({ clientId: "aliased", properties: { topicAliasMaximum: 2 } });
    await sub.subscribeAsync("lru/#", { qos: 1 });
    const got = collect(sub);
    const pub = await h.client({ clientId: "pub" });
    // Three topics through two aliases: every third message rebinds one.
    const topics = ["lru/a", "lru/b", "lru/c", "lru/a", "lru/c", "lru/b", "lru/b", "lru/a", "lru/c", "lru/a"];
    for (const [i, topic] of topics.entries()) await pub.publishAsync(topic, String(i), { qos: 1 });
    await until(() => got.length === topics.length);
    expect(got.map((m) => [m.topic, m.payload])).toEqual(topics.map((t, i) => [t, String(i)]));
  });

  it("honours a subscriber's Receive Maximum and still delivers everything", async () => {
    const sub = await h.client({ clientId: "slow", properties: { receiveMaximum: 1 } });
    await sub.subscribeAsync("many", { qos: 1 });
    const pub = await h.client({ clientId: "pub" });
    for (let i = 0; i < 50; i++) void pub.publishAsync("many", String(i), { qos: 1 });
    const got = collect(sub);
    await until(() => got.length === 50);
    expect(got.map((m) => Number(m.payload))).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it("waits for the will delay, and a reconnect within it cancels the will", async () => {
    // The broker's clock is the test's: the reconnect comes within the delay however slow the
    // machine is, and the delay then passes when the test says.
    const clock = new ManualClock(Date.now());
    await h.close();
    h = await startBroker({ clock });
    const watcher = await h.client({ clientId: "watcher" });
    await watcher.subscribeAsync("wills/#", { qos: 1 });
    const will = { topic: "wills/x", payload: Buffer.from("late"), qos: 1 as const, retain: false, properties: { willDelayInterval: 1 } };
    const x = await h.client({ clientId: "x", clean: false, properties: { sessionExpiryInterval: 60 }, will });
    x.stream.destroy();
    await until(() => h.broker.router.session("x")?.connected === false, 5000, "x's connection gone");
    clock.advance(300);
    h.broker.tick();
    await h.client({ clientId: "x", clean: false, properties: { sessionExpiryInterval: 60 } });
    clock.advance(1000);
    h.broker.tick();
    // A will fired by that tick would reach the watcher before a message published after it.
    const fence = await h.client({ clientId: "fence" });
    await fence.publishAsync("wills/fence", "after the delay", { qos: 1 });
    await until(() => collect(watcher).length > 0, 5000, "the fence message");
    expect(collect(watcher).map((m) => m.payload)).toEqual(["after the delay"]);
  });

  it("works over the WebSocket listener", async () => {
    const sub = await h.client({ clientId: "ws-sub", transport: "ws" });
    await sub.subscribeAsync("over/ws", { qos: 1 });
    const pub = await h.client({ clientId: "tcp-pub" });
    await pub.publishAsync("over/ws", "hello", { qos: 1 });
    const got = collect(sub);
    await until(() => got.length === 1);
    expect(got[0]?.payload).toBe("hello");
  });

  it("answers malformed bytes with DISCONNECT 0x81 and closes, leaving other clients alone", async () => {
    const bystander = await h.client({ clientId: "bystander" });
    await bystander.subscribeAsync("still/here", { qos: 1 });
    const raw = connect(h.tcpPort, "127.0.0.1");
    const bytes: Buffer[] = [];
    raw.on("data", (b: Buffer) => bytes.push(b));
    const closed = new Promise<void>((resolve) => raw.on("close", () => { resolve(); }));
    // A valid MQTT 5 CONNECT, then a PUBLISH whose remaining length overruns its content.
    raw.write(Buffer.from("101000044d5154540502003c000003726177", "hex"));
    await until(() => bytes.length > 0, 3000, "CONNACK");
    raw.write(Buffer.from("3003000574", "hex")); // QoS 0 PUBLISH: a 5-byte topic in a 3-byte body
    await closed;
    const all = Buffer.concat(bytes);
    const disconnect = all.subarray(all.indexOf(0xe0));
    expect(disconnect[0]).toBe(0xe0);
    expect(disconnect[2]).toBe(0x81);
    const pub = await h.client({ clientId: "pub" });
    await pub.publishAsync("still/here", "ok", { qos: 1 });
    const got = collect(bystander);
    await until(() => got.length === 1);
  });
});
