// Session expiry, wills and message expiry, driven by the injected clock.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("session expiry", () => {
  it("ends a session with expiry 0 when its connection closes [MQTT-3.1.2-23]", () => {
    const { router } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 0 });
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    expect(router.session("c")).toBeUndefined();
    expect(router.subscriptionCount).toBe(0);
  });

  it("keeps a disconnected session and its queue until the interval passes [MQTT-4.1.0-2]", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 10 });
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "waiting"));
    clock.advance(9_999);
    expect(router.tick()).toEqual([]);
    expect(router.session("c")?.queue.count).toBe(1);
    clock.advance(1);
    expect(router.tick()).toEqual([{ kind: "session-expired", clientId: "c", discarded: 1 }]);
    expect(router.session("c")).toBeUndefined();
  });

  it("never expires a session with interval 0xFFFFFFFF", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 0xffffffff });
    router.disconnect("c", c.generation, { publishWill: false });
    clock.advance(10 * 365 * 24 * 3600 * 1000);
    router.tick();
    expect(router.session("c")).toBeDefined();
  });

  it("uses the interval a DISCONNECT sets", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 3600 });
    router.disconnect("c", c.generation, { publishWill: false, sessionExpiryInterval: 1 });
    clock.advance(1000);
    router.tick();
    expect(router.session("c")).toBeUndefined();
  });

  it("is not expired by a timer from an earlier disconnect once the client came back", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 5 });
    router.disconnect("c", c.generation, { publishWill: false });
    online(router, "c");
    clock.advance(5000);
    router.tick();
    expect(router.session("c")?.connected).toBe(true);
  });

  it("caps the interval at the server's maximum and says so", () => {
    const { router } = newRouter({ maxSessionExpiry: 60 });
    const outcome = router.connect({ clientId: "c", cleanStart: true, sessionExpiryInterval: 3600, receiveMaximum: 1, protocolVersion: 5, sink: { publish: () => true, pubrel: () => undefined } });
    expect(outcome.sessionExpiryInterval).toBe(60);
  });

  it("reports session present only for a resumed existing session [MQTT-3.2.2-2/3]", () => {
    const { router } = newRouter();
    expect(online(router, "c").sessionPresent).toBe(false);
    expect(online(router, "c").sessionPresent).toBe(true);
    expect(online(router, "c", { cleanStart: true }).sessionPresent).toBe(false);
  });
});

describe("wills", () => {
  function watch(router: ReturnType<typeof newRouter>["router"]) {
    const w = online(router, "watcher");
    router.subscribe("watcher", w.generation, [sub("will/#", 1)]);
    return w;
  }

  it("publishes the will when the connection drops without DISCONNECT", () => {
    const { router } = newRouter();
    const w = watch(router);
    const c = online(router, "c", { will: { message: message("will/c", "bye"), delaySeconds: 0 } });
    router.disconnect("c", c.generation, { publishWill: true });
    expect(w.sink.payloads()).toEqual(["bye"]);
  });

  it("discards the will on a normal DISCONNECT [MQTT-3.14.4-3]", () => {
    const { router } = newRouter();
    const w = watch(router);
    const c = online(router, "c", { will: { message: message("will/c", "bye"), delaySeconds: 0 } });
    router.disconnect("c", c.generation, { publishWill: false });
    expect(w.sink.sent).toEqual([]);
  });

  it("waits for the will delay before publishing [MQTT-3.1.2-8]", () => {
    const { router, clock } = newRouter();
    const w = watch(router);
    const c = online(router, "c", { will: { message: message("will/c", "late"), delaySeconds: 5 } });
    router.disconnect("c", c.generation, { publishWill: true });
    clock.advance(4999);
    router.tick();
    expect(w.sink.sent).toEqual([]);
    clock.advance(1);
    expect(router.tick()).toEqual([{ kind: "will-published", clientId: "c", topic: "will/c" }]);
    expect(w.sink.payloads()).toEqual(["late"]);
  });

  it("is cancelled by a reconnect within the delay [MQTT-3.1.3-9]", () => {
    const { router, clock } = newRouter();
    const w = watch(router);
    const c = online(router, "c", { will: { message: message("will/c", "late"), delaySeconds: 5 } });
    router.disconnect("c", c.generation, { publishWill: true });
    clock.advance(1000);
    online(router, "c");
    clock.advance(10_000);
    router.tick();
    expect(w.sink.sent).toEqual([]);
  });

  it("goes out when the session ends before the will delay does", () => {
    const { router, clock } = newRouter();
    const w = watch(router);
    const c = online(router, "c", { sessionExpiryInterval: 2, will: { message: message("will/c", "ended"), delaySeconds: 60 } });
    router.disconnect("c", c.generation, { publishWill: true });
    clock.advance(2000);
    router.tick();
    expect(w.sink.payloads()).toEqual(["ended"]);
    expect(router.session("c")).toBeUndefined();
  });

  it("goes out at once when a clean-start takeover ends the session", () => {
    const { router } = newRouter();
    const w = watch(router);
    online(router, "c", { will: { message: message("will/c", "replaced"), delaySeconds: 60 } });
    online(router, "c", { cleanStart: true });
    expect(w.sink.payloads()).toEqual(["replaced"]);
  });
});

describe("message expiry", () => {
  it("drops a queued message whose expiry passed before it could be sent [MQTT-3.3.2-5]", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "short", 1, { expiresAt: clock.now() + 1000 }));
    router.publish(message("t", "long", 1, { expiresAt: clock.now() + 60_000 }));
    clock.advance(1500);
    const back = online(router, "c");
    expect(back.sink.payloads()).toEqual(["long"]);
    expect(router.stats.dropped.expired).toBe(1);
  });

  it("forwards the interval left, rounded up to whole seconds [MQTT-3.3.2-6]", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "x", 1, { expiresAt: clock.now() + 10_000 }));
    clock.advance(2500);
    expect(online(router, "c").sink.sent[0]?.properties.messageExpiryInterval).toBe(8);
  });

  it("still resends (DUP, same packet id) a copy the client already saw, even once it expired [MQTT-4.3.3-7]", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.publish(message("t", "seen", 1, { expiresAt: clock.now() + 1000 }));
    const first = c.sink.sent[0];
    expect(first?.packetId).toBeDefined();
    router.disconnect("c", c.generation, { publishWill: false });
    clock.advance(5000);
    router.tick();
    const back = online(router, "c");
    expect(back.sink.sent.map((p) => [new TextDecoder().decode(p.payload), p.packetId, p.dup])).toEqual([["seen", first?.packetId, true]]);
    expect(router.stats.dropped.expired).toBe(0);
  });

  it("clears expired messages from an offline session's queue on tick", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "x", 1, { expiresAt: clock.now() + 1000 }));
    clock.advance(1000);
    router.tick();
    expect(router.session("c")?.queue.count).toBe(0);
  });
});

describe("flow control and bounds", () => {
  it("never has more unacknowledged QoS 1/2 deliveries than the client's Receive Maximum [MQTT-3.3.4-9]", () => {
    const { router } = newRouter();
    const c = online(router, "c", { receiveMaximum: 2 });
    router.subscribe("c", c.generation, [sub("t")]);
    for (let i = 0; i < 5; i++) router.publish(message("t", String(i)));
    expect(c.sink.payloads()).toEqual(["0", "1"]);
    router.acknowledge("c", c.generation, c.sink.sent[0]?.packetId ?? 0);
    expect(c.sink.payloads()).toEqual(["0", "1", "2"]);
  });

  it("evicts the oldest queued QoS 0 copy before any QoS 1 copy when the queue is full", () => {
    const { router } = newRouter({ queueLimits: { maxCount: 2 }, queueQos0Offline: true });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 1)]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "q1-a", 1));
    router.publish(message("t", "q0", 0));
    router.publish(message("t", "q1-b", 1));
    expect(online(router, "c").sink.payloads()).toEqual(["q1-a", "q1-b"]);
    expect(router.stats.dropped.evicted).toBe(1);
  });

  it("drops the oldest QoS 1 copy under drop-oldest and counts it", () => {
    const { router } = newRouter({ queueLimits: { maxCount: 2 } });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 1)]);
    router.disconnect("c", c.generation, { publishWill: false });
    for (const p of ["1", "2", "3"]) router.publish(message("t", p));
    expect(online(router, "c").sink.payloads()).toEqual(["2", "3"]);
    expect(router.stats.dropped.evicted).toBe(1);
  });

  it("refuses the new QoS 1 copy under drop-new and counts it", () => {
    const { router } = newRouter({ queueLimits: { maxCount: 2 }, overflow: "drop-new" });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 1)]);
    router.disconnect("c", c.generation, { publishWill: false });
    for (const p of ["1", "2", "3"]) router.publish(message("t", p));
    expect(online(router, "c").sink.payloads()).toEqual(["1", "2"]);
    expect(router.stats.dropped["queue-full"]).toBe(1);
  });

  it("counts a delivery the connection refused as too large and frees its packet id", () => {
    const { router } = newRouter();
    const c = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", c.generation, [sub("t")]);
    c.sink.refuse = true;
    router.publish(message("t", "huge"));
    c.sink.refuse = false;
    router.publish(message("t", "small"));
    expect(c.sink.payloads()).toEqual(["small"]);
    expect(router.stats.dropped["refused-by-connection"]).toBe(1);
  });
});
