// The takeover races of seed 000 and its sibling (#151), with the test choosing the interleaving.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, recordingSink, sub } from "./router.test-helpers.js";

describe("seed 000: a publish planned for a session that is then taken over", () => {
  it("is dropped when the takeover is a clean start: the clean session never receives it", () => {
    const { router } = newRouter();
    const a1 = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", a1.generation, [sub("t")]);
    router.publish(message("t", "fills the lane"));
    expect(a1.sink.payloads()).toEqual(["fills the lane"]);

    const plan = router.plan(message("t", "planned for A1")); // snapshot under the "read lock"
    const a2 = online(router, "c", { cleanStart: true }); // clean-start takeover binds first
    const outcome = router.execute(plan); // then the stale plan executes

    expect(outcome).toMatchObject({ queued: 0, stale: 1 });
    expect(a2.sink.sent).toEqual([]);
    expect(router.session("c")?.queue.count).toBe(0);
    expect(router.stats.dropped["stale-plan"]).toBe(1);
  });

  it("is delivered exactly once when the takeover resumes the session [MQTT-4.5.0-1]", () => {
    const { router } = newRouter();
    const a1 = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", a1.generation, [sub("t")]);
    router.publish(message("t", "fills the lane"));

    const plan = router.plan(message("t", "planned for A1"));
    const a2 = online(router, "c", { cleanStart: false, receiveMaximum: 1 });
    expect(a2.sessionPresent).toBe(true);
    const outcome = router.execute(plan);
    expect(outcome).toMatchObject({ queued: 1, stale: 0 });

    // The in-flight message is resent first (same id, DUP=1); the planned one follows once acked.
    expect(a2.sink.sent.map((p) => [new TextDecoder().decode(p.payload), p.dup])).toEqual([["fills the lane", true]]);
    const first = a2.sink.sent[0]?.packetId ?? 0;
    expect(first).toBe(a1.sink.sent[0]?.packetId);
    router.acknowledge("c", a2.generation, first);
    expect(a2.sink.payloads()).toEqual(["fills the lane", "planned for A1"]);
    const second = a2.sink.sent[1]?.packetId ?? 0;
    router.acknowledge("c", a2.generation, second);
    expect(router.session("c")?.queue.count).toBe(0);
  });

  it("is dropped when the session expired and a new one was created under the same client id", () => {
    const { router, clock } = newRouter();
    const a1 = online(router, "c", { sessionExpiryInterval: 1 });
    router.subscribe("c", a1.generation, [sub("t")]);
    const plan = router.plan(message("t", "for the old session"));
    router.disconnect("c", a1.generation, { publishWill: false });
    clock.advance(1000);
    router.tick();
    const fresh = online(router, "c", { cleanStart: false });
    expect(fresh.sessionPresent).toBe(false);
    expect(router.execute(plan).stale).toBe(1);
    expect(fresh.sink.sent).toEqual([]);
  });
});

describe("#151: a new publish while the new owner is binding", () => {
  it("does not overtake the requeued in-flight message", () => {
    const { router } = newRouter();
    const a1 = online(router, "c", { receiveMaximum: 5 });
    router.subscribe("c", a1.generation, [sub("t")]);
    router.publish(message("t", "m1")); // in flight on A1, never acknowledged

    // A2 connects (resume); its CONNACK waits for the session claim to commit: not bound yet.
    const sink = recordingSink();
    const a2 = router.connect({ clientId: "c", cleanStart: false, sessionExpiryInterval: 60, receiveMaximum: 5, protocolVersion: 5, sink });
    router.publish(message("t", "m2")); // arrives in the window
    expect(sink.sent).toEqual([]); // behind: nothing jumps ahead
    router.bind("c", a2.generation);

    expect(sink.sent.map((p) => [new TextDecoder().decode(p.payload), p.dup])).toEqual([
      ["m1", true],
      ["m2", false],
    ]);
  });

  it("resends a QoS 2 delivery already PUBREC'd as PUBREL, not as PUBLISH [MQTT-4.4.0-1]", () => {
    const { router } = newRouter();
    const a1 = online(router, "c");
    router.subscribe("c", a1.generation, [sub("t", 2)]);
    router.publish(message("t", "q2", 2));
    const id = a1.sink.sent[0]?.packetId ?? 0;
    router.pubrec("c", a1.generation, id);
    const a2 = online(router, "c");
    expect(a2.sink.sent).toEqual([]);
    expect(a2.sink.pubrels).toEqual([id]);
    router.acknowledge("c", a2.generation, id); // PUBCOMP
    expect(router.session("c")?.queue.count).toBe(0);
  });
});

describe("displaced connections are fenced (invariant 7)", () => {
  it("cannot subscribe, unsubscribe, acknowledge or release the session it lost", () => {
    const { router } = newRouter();
    const a1 = online(router, "c");
    router.subscribe("c", a1.generation, [sub("t")]);
    router.publish(message("t", "m1"));
    const a2 = online(router, "c");
    const id = a2.sink.sent[0]?.packetId ?? 0;

    expect(router.subscribe("c", a1.generation, [sub("x")])).toEqual({ ok: false, reason: "stale-generation" });
    expect(router.unsubscribe("c", a1.generation, ["t"])).toEqual({ ok: false, reason: "stale-generation" });
    expect(router.acknowledge("c", a1.generation, id)).toEqual({ ok: false, reason: "stale-generation" });
    expect(router.disconnect("c", a1.generation, { publishWill: true })).toEqual({ ok: false, reason: "stale-generation" });
    expect(router.session("c")?.connected).toBe(true);
    expect([...(router.session("c")?.subscriptions.keys() ?? [])]).toEqual(["t"]);
  });

  it("cannot fire its will into the session's new life", () => {
    const { router } = newRouter();
    const watcher = online(router, "w");
    router.subscribe("w", watcher.generation, [sub("will/#")]);
    const a1 = online(router, "c", { will: { message: message("will/c", "gone"), delaySeconds: 30 } });
    online(router, "c"); // resume within the delay cancels the will [MQTT-3.1.3-9]
    router.disconnect("c", a1.generation, { publishWill: true });
    expect(watcher.sink.payloads()).toEqual([]);
  });

  it("reports the displaced generation so the app can send DISCONNECT 0x8E [MQTT-3.1.4-3]", () => {
    const { router } = newRouter();
    const a1 = online(router, "c");
    const outcome = router.connect({ clientId: "c", cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 1, protocolVersion: 5, sink: recordingSink() });
    expect(outcome.displaced).toBe(a1.generation);
    expect(outcome.generation).toBeGreaterThan(a1.generation);
    expect(router.stats.takeovers).toBe(1);
  });
});

describe("the owner of a client id", () => {
  it("is the sink of the connection that claimed it last, bound or not, until it disconnects", () => {
    const { router } = newRouter();
    expect(router.owner("c")).toBeUndefined();
    const a1 = online(router, "c");
    expect(router.owner("c")).toBe(a1.sink);
    const a2 = recordingSink();
    const claim = router.connect({ clientId: "c", cleanStart: false, sessionExpiryInterval: 3600, receiveMaximum: 10, protocolVersion: 5, sink: a2 });
    expect(router.owner("c")).toBe(a2); // before bind too: the takeover is complete on connect
    router.disconnect("c", a1.generation, { publishWill: false });
    expect(router.owner("c")).toBe(a2); // the displaced connection cannot release it
    router.disconnect("c", claim.generation, { publishWill: false });
    expect(router.owner("c")).toBeUndefined();
    expect(router.session("c")).toBeDefined(); // the session outlives its owner (expiry 3600 s)
  });
});
