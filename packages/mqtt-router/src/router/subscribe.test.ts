// Subscription behaviours of the router, each tied to the spec statement it implements.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("matching and effective QoS", () => {
  it("delivers at min(publish QoS, granted QoS) [MQTT-3.8.4-8]", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 1)]);
    router.publish(message("t", "q2", 2));
    router.publish(message("t", "q0", 0));
    expect(c.sink.sent.map((p) => p.qos)).toEqual([1, 0]);
  });

  it("queues for an offline session at the effective QoS, not the granted one", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 2)]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "q1", 1));
    router.publish(message("t", "q0", 0)); // QoS 0 is not queued offline by default
    const back = online(router, "c");
    expect(back.sink.sent.map((p) => [p.qos, new TextDecoder().decode(p.payload)])).toEqual([[1, "q1"]]);
    expect(router.stats.dropped["offline-qos0"]).toBe(1);
  });

  it("sends one copy for overlapping subscriptions with the highest QoS and every identifier [MQTT-3.3.4-3]", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("a/+", 0)], 7);
    router.subscribe("c", c.generation, [sub("a/#", 2)], 9);
    router.publish(message("a/b", "x", 2));
    expect(c.sink.sent).toHaveLength(1);
    expect(c.sink.sent[0]?.qos).toBe(2);
    expect([...(c.sink.sent[0]?.properties.subscriptionIdentifiers ?? [])].sort()).toEqual([7, 9]);
  });

  it("does not send a client its own publish on a no-local subscription [MQTT-3.8.3-3]", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 1, { noLocal: true })]);
    router.publish(message("t", "mine", 1, { origin: "c" }));
    router.publish(message("t", "theirs", 1, { origin: "d" }));
    expect(c.sink.payloads()).toEqual(["theirs"]);
  });

  it("clears RETAIN on forwarded messages unless retain-as-published [MQTT-3.3.1-12/13]", () => {
    const { router } = newRouter();
    const plain = online(router, "p");
    const rap = online(router, "r");
    router.subscribe("p", plain.generation, [sub("t")]);
    router.subscribe("r", rap.generation, [sub("t", 1, { retainAsPublished: true })]);
    router.publish(message("t", "x", 1, { retain: true }));
    expect(plain.sink.sent[0]?.retain).toBe(false);
    expect(rap.sink.sent[0]?.retain).toBe(true);
  });

  it("replaces a subscription to an identical filter rather than adding one [MQTT-3.8.4-3]", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 0)]);
    router.subscribe("c", c.generation, [sub("t", 2)]);
    router.publish(message("t", "x", 2));
    expect(c.sink.sent.map((p) => p.qos)).toEqual([2]);
    expect(router.subscriptionCount).toBe(1);
  });

  it("stops delivering after unsubscribe and reports which filters existed", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    expect(router.unsubscribe("c", c.generation, ["t", "nope"])).toEqual({ ok: true, existed: [true, false] });
    router.publish(message("t", "x"));
    expect(c.sink.sent).toEqual([]);
  });

  it("tells the publisher when nothing matched (PUBACK 0x10)", () => {
    const { router } = newRouter();
    expect(router.publish(message("nobody/listens", "x")).noMatchingSubscribers).toBe(true);
    expect(router.stats.unmatched).toBe(1);
  });
});

describe("retained messages on subscribe", () => {
  it("sends matching retained messages with RETAIN set at the effective QoS with the subscription id [MQTT-3.3.1-9]", () => {
    const { router } = newRouter();
    router.publish(message("s/1", "r1", 2, { retain: true }));
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("s/+", 1)], 4);
    expect(c.sink.sent.map((p) => [p.retain, p.qos, p.properties.subscriptionIdentifiers])).toEqual([[true, 1, [4]]]);
  });

  it("sends retained messages only for a new subscription with retain handling 1 [MQTT-3.3.1-10]", () => {
    const { router } = newRouter();
    router.publish(message("s", "r", 1, { retain: true }));
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("s", 1, { retainHandling: 1 })]);
    router.subscribe("c", c.generation, [sub("s", 1, { retainHandling: 1 })]);
    expect(c.sink.payloads()).toEqual(["r"]);
  });

  it("never sends retained messages with retain handling 2 [MQTT-3.3.1-11]", () => {
    const { router } = newRouter();
    router.publish(message("s", "r", 1, { retain: true }));
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("s", 1, { retainHandling: 2 })]);
    expect(c.sink.sent).toEqual([]);
  });

  it("resends retained messages when an identical subscription is replaced with retain handling 0 [MQTT-3.8.4-4]", () => {
    const { router } = newRouter();
    router.publish(message("s", "r", 0, { retain: true }));
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("s", 0)]);
    router.subscribe("c", c.generation, [sub("s", 0)]);
    expect(c.sink.payloads()).toEqual(["r", "r"]);
  });

  it("forgets a topic's retained message on an empty retained publish", () => {
    const { router } = newRouter();
    router.publish(message("s", "r", 0, { retain: true }));
    router.publish(message("s", "", 0, { retain: true }));
    expect(router.retainedCount).toBe(0);
  });
});

describe("shared subscriptions", () => {
  it("deliver each message to one member, round-robin among connected members [MQTT-4.8.2]", () => {
    const { router } = newRouter();
    const a = online(router, "a");
    const b = online(router, "b");
    router.subscribe("a", a.generation, [sub("$share/g/jobs/+")]);
    router.subscribe("b", b.generation, [sub("$share/g/jobs/+")]);
    for (let i = 0; i < 4; i++) router.publish(message("jobs/x", String(i)));
    expect(a.sink.payloads()).toEqual(["0", "2"]);
    expect(b.sink.payloads()).toEqual(["1", "3"]);
  });

  it("skip a disconnected member while another is connected", () => {
    const { router } = newRouter();
    const a = online(router, "a");
    const b = online(router, "b");
    router.subscribe("a", a.generation, [sub("$share/g/t")]);
    router.subscribe("b", b.generation, [sub("$share/g/t")]);
    router.disconnect("a", a.generation, { publishWill: false });
    for (let i = 0; i < 3; i++) router.publish(message("t", String(i)));
    expect(b.sink.payloads()).toEqual(["0", "1", "2"]);
    expect(router.session("a")?.queue.count).toBe(0);
  });

  it("queue for an offline member only when no member is connected", () => {
    const { router } = newRouter();
    const a = online(router, "a");
    router.subscribe("a", a.generation, [sub("$share/g/t")]);
    router.disconnect("a", a.generation, { publishWill: false });
    router.publish(message("t", "kept"));
    expect(online(router, "a").sink.payloads()).toEqual(["kept"]);
  });

  it("get a copy independent of the member's own plain subscription", () => {
    const { router } = newRouter();
    const a = online(router, "a");
    router.subscribe("a", a.generation, [sub("t"), sub("$share/g/t")]);
    router.publish(message("t", "x"));
    expect(a.sink.sent).toHaveLength(2);
  });

  it("are counted once per member, and no longer after unsubscribe or the session's end", () => {
    const { router } = newRouter();
    const a = online(router, "a", { sessionExpiryInterval: 0 });
    const b = online(router, "b");
    router.subscribe("a", a.generation, [sub("$share/g/t"), sub("plain")]);
    router.subscribe("a", a.generation, [sub("$share/g/t")]);
    router.subscribe("b", b.generation, [sub("$share/g/t")]);
    expect(router.subscriptionCount).toBe(3);
    router.unsubscribe("b", b.generation, ["$share/g/t"]);
    expect(router.subscriptionCount).toBe(2);
    router.disconnect("a", a.generation, { publishWill: false });
    expect(router.subscriptionCount).toBe(0);
  });

  it("are plain filters for MQTT 3.1.1 clients", () => {
    const { router } = newRouter();
    const a = online(router, "a", { protocolVersion: 4 });
    router.subscribe("a", a.generation, [sub("$share/g/t")]);
    router.publish(message("t", "x"));
    router.publish(message("$share/g/t", "literal"));
    expect(a.sink.payloads()).toEqual(["literal"]);
  });
});

describe("holding deliveries until a SUBACK goes out", () => {
  it("queues everything for an unbound connection, retained copies first, and sends it in order on bind", () => {
    const { router } = newRouter();
    router.publish({ ...message("news", "old"), retain: true });
    const c = online(router, "c");
    expect(router.unbind("c", c.generation)).toBe(true);
    router.subscribe("c", c.generation, [sub("news", 1)]);
    router.publish(message("news", "new"));
    expect(c.sink.sent).toEqual([]);
    expect(router.bind("c", c.generation)).toBe(true);
    expect(c.sink.payloads()).toEqual(["old", "new"]);
  });

  it("refuses to unbind a displaced connection", () => {
    const { router } = newRouter();
    const first = online(router, "c");
    online(router, "c");
    expect(router.unbind("c", first.generation)).toBe(false);
  });
});
