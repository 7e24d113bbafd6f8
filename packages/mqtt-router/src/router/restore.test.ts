// Restart recovery: a router rebuilt from what a durable store recorded.
import { describe, expect, it } from "vitest";
import { SnapshotStore } from "./snapshot-store.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

const recordingStore = (): SnapshotStore => new SnapshotStore();

describe("Router.restore", () => {
  it("resends in-flight deliveries with their packet ids and DUP=1 before the queued ones", () => {
    const store = recordingStore();
    const first = newRouter({ store });
    const c = online(first.router, "c", { receiveMaximum: 1 });
    first.router.subscribe("c", c.generation, [sub("t")]);
    first.router.publish(message("t", "in-flight"));
    first.router.publish(message("t", "queued"));
    const id = c.sink.sent[0]?.packetId;
    // The process dies here. A new one restores from the store.
    const second = newRouter({ store });
    second.router.restore(store.snapshot());
    const back = online(second.router, "c", { receiveMaximum: 5 });
    expect(back.sessionPresent).toBe(true);
    expect(back.sink.sent.map((p) => [new TextDecoder().decode(p.payload), p.dup, p.packetId === id])).toEqual([
      ["in-flight", true, true],
      ["queued", false, false],
    ]);
  });

  it("brings back subscriptions and retained messages", () => {
    const store = recordingStore();
    const first = newRouter({ store });
    const c = online(first.router, "c");
    first.router.subscribe("c", c.generation, [sub("news/#")]);
    first.router.publish(message("status", "up", 1, { retain: true }));
    const second = newRouter({ store });
    second.router.restore(store.snapshot());
    const back = online(second.router, "c");
    second.router.publish(message("news/1", "after restart"));
    expect(back.sink.payloads()).toEqual(["after restart"]);
    expect(second.router.retainedCount).toBe(1);
  });

  it("still evicts a restored QoS 0 copy before any QoS 1 copy when the queue is full", () => {
    const store = recordingStore();
    const first = newRouter({ store, queueLimits: { maxCount: 2 }, queueQos0Offline: true });
    const c = online(first.router, "c");
    first.router.subscribe("c", c.generation, [sub("t", 1)]);
    first.router.disconnect("c", c.generation, { publishWill: false });
    first.router.publish(message("t", "q1-a", 1));
    first.router.publish(message("t", "q0", 0));
    const second = newRouter({ store, queueLimits: { maxCount: 2 }, queueQos0Offline: true });
    second.router.restore(store.snapshot());
    second.router.publish(message("t", "q1-b", 1));
    expect(online(second.router, "c").sink.payloads()).toEqual(["q1-a", "q1-b"]);
  });

  it("hands out generations above every stored one", () => {
    const store = recordingStore();
    const first = newRouter({ store });
    const c = online(first.router, "c");
    const second = newRouter({ store });
    second.router.restore(store.snapshot());
    expect(online(second.router, "c").generation).toBeGreaterThan(c.generation);
  });

  it("continues session expiry from the stored disconnect time", () => {
    const store = recordingStore();
    const first = newRouter({ store });
    const c = online(first.router, "c", { sessionExpiryInterval: 10 });
    first.router.disconnect("c", c.generation, { publishWill: false });
    const second = newRouter({ store });
    second.clock.set(first.clock.now() + 9_000);
    second.router.restore(store.snapshot());
    second.router.tick();
    expect(second.router.session("c")).toBeDefined();
    second.clock.advance(1_000);
    second.router.tick();
    expect(second.router.session("c")).toBeUndefined();
  });

  it("ends a session that expired while the process was down, before anyone can resume it", () => {
    const store = recordingStore();
    const first = newRouter({ store });
    const c = online(first.router, "c", { sessionExpiryInterval: 1, will: { message: message("will/c", "gone"), delaySeconds: 60 } });
    const w = online(first.router, "w");
    first.router.subscribe("w", w.generation, [sub("will/#")]);
    first.router.disconnect("c", c.generation, { publishWill: true });
    const second = newRouter({ store });
    second.clock.set(first.clock.now() + 1_000);
    second.router.restore(store.snapshot());
    expect(second.router.session("c")).toBeUndefined();
    expect(online(second.router, "c").sessionPresent).toBe(false);
    expect(second.router.stats.willsPublished).toBe(1);
  });

  it("keeps the inbound QoS 2 ids awaiting PUBREL for the protocol's dedupe", () => {
    const store = recordingStore();
    const first = newRouter({ store });
    const c = online(first.router, "c");
    first.router.inboundQos2("c", c.generation, 7, true);
    const second = newRouter({ store });
    second.router.restore(store.snapshot());
    const outcome = second.router.connect({ clientId: "c", cleanStart: false, sessionExpiryInterval: 60, receiveMaximum: 1, protocolVersion: 5, sink: { publish: () => true, pubrel: () => undefined } });
    expect(outcome.inboundQos2).toEqual([7]);
  });
});
