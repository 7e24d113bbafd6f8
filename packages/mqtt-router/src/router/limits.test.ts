import { describe, expect, it } from "vitest";
import { deliverySize, messageSize, type Message } from "./message.js";
import type { RouterStore } from "./store.js";
import { memoryOnlyStore } from "./store.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

const retained = (topic: string, payload: string, extra: Partial<Message> = {}): Message => message(topic, payload, 0, { retain: true, ...extra });

describe("maxSessions", () => {
  it("admits a new client id only below the cap, and an existing one always (resumed or replaced)", () => {
    const { router } = newRouter({ maxSessions: 2 });
    online(router, "a");
    expect(router.admitsSession("b")).toBe(true);
    online(router, "b");
    expect(router.admitsSession("c")).toBe(false);
    expect([router.admitsSession("a"), router.admitsSession("b")]).toEqual([true, true]);
    online(router, "a", { cleanStart: true });
    expect(router.sessionCount).toBe(2);
  });

  it("admits a new client id again once a session has ended", () => {
    const { router, clock } = newRouter({ maxSessions: 1 });
    const a = online(router, "a", { sessionExpiryInterval: 10 });
    router.disconnect("a", a.generation, { publishWill: false });
    expect(router.admitsSession("b")).toBe(false);
    clock.advance(10_000);
    router.tick();
    expect(router.admitsSession("b")).toBe(true);
  });
});

describe("maxSubscriptionsPerSession", () => {
  it("answers 0x97 for a new filter past the cap, counts it, and neither indexes it nor sends its retained messages", () => {
    const { router } = newRouter({ maxSubscriptionsPerSession: 2 });
    router.publish(retained("c", "kept"));
    const a = online(router, "a");
    const result = router.subscribe("a", a.generation, [sub("a"), sub("b"), sub("c")]);
    expect(result).toEqual({ ok: true, granted: [1, 1, 0x97] });
    expect(router.stats.limitsExceeded["subscriptions-per-session"]).toBe(1);
    expect(router.subscriptionCount).toBe(2);
    router.publish(message("c", "new"));
    expect(a.sink.sent).toEqual([]);
  });

  it("replaces a subscription at the cap, and takes a new one after an unsubscribe", () => {
    const { router } = newRouter({ maxSubscriptionsPerSession: 1 });
    const a = online(router, "a");
    router.subscribe("a", a.generation, [sub("a", 1)]);
    expect(router.subscribe("a", a.generation, [sub("a", 2)])).toEqual({ ok: true, granted: [2] });
    expect(router.subscribe("a", a.generation, [sub("b")])).toEqual({ ok: true, granted: [0x97] });
    router.unsubscribe("a", a.generation, ["a"]);
    expect(router.subscribe("a", a.generation, [sub("b")])).toEqual({ ok: true, granted: [1] });
  });
});

describe("maxRetainedMessages", () => {
  it("delivers a retained message for a new topic past the cap but does not store it, and counts it", () => {
    const changes: string[] = [];
    const store: RouterStore = { ...memoryOnlyStore, retainedChanged: (topic, m) => changes.push(`${topic}:${m === undefined ? "-" : "+"}`) };
    const { router } = newRouter({ maxRetainedMessages: 2, store });
    const s = online(router, "s");
    router.subscribe("s", s.generation, [sub("#", 0)]);
    expect(router.publish(retained("a", "1")).retainRefused).toBe(false);
    router.publish(retained("b", "1"));
    const over = router.publish(retained("c", "1"));
    expect(over.retainRefused).toBe(true);
    expect(s.sink.sent.map((p) => p.topic)).toEqual(["a", "b", "c"]);
    expect(router.retainedCount).toBe(2);
    expect(router.stats.limitsExceeded["retained-messages"]).toBe(1);
    expect(changes).toEqual(["a:+", "b:+"]);
  });

  it("still replaces and deletes at the cap, and stores a new topic once one was deleted", () => {
    const { router } = newRouter({ maxRetainedMessages: 1 });
    router.publish(retained("a", "1"));
    expect(router.publish(retained("a", "2")).retainRefused).toBe(false);
    router.publish(retained("a", ""));
    expect(router.publish(retained("b", "1")).retainRefused).toBe(false);
    expect(router.retainedCount).toBe(1);
  });

  it("holds wills to the cap too", () => {
    const { router } = newRouter({ maxRetainedMessages: 1 });
    router.publish(retained("a", "1"));
    const w = online(router, "w", { will: { message: retained("will", "gone"), delaySeconds: 0 } });
    router.disconnect("w", w.generation, { publishWill: true });
    expect(router.retainedCount).toBe(1);
    expect(router.stats.limitsExceeded["retained-messages"]).toBe(1);
  });
});

describe("maxRetainedBytes", () => {
  it("refuses a retained message that would pass the bytes, and deletes the older one of its topic rather than keep a stale state", () => {
    const small = retained("a", "x");
    const { router } = newRouter({ maxRetainedBytes: messageSize(small) + 10 });
    router.publish(small);
    expect(router.retainedBytes).toBe(messageSize(small));
    const big = router.publish(retained("a", "x".repeat(100)));
    expect(big.retainRefused).toBe(true);
    expect(router.retainedCount).toBe(0);
    expect(router.retainedBytes).toBe(0);
    expect(router.stats.limitsExceeded["retained-bytes"]).toBe(1);
  });

  it("counts every property of a retained message", () => {
    const plain = retained("a", "x");
    const { router } = newRouter({ maxRetainedBytes: messageSize(plain) });
    expect(router.publish(retained("a", "x", { properties: { correlationData: new Uint8Array(1) } })).retainRefused).toBe(true);
    expect(router.publish(plain).retainRefused).toBe(false);
  });
});

describe("the queue's byte bound", () => {
  const contentType = "c".repeat(100);
  const responseTopic = "r".repeat(100);
  const correlationData = new Uint8Array(100);
  const userProperties: [string, string][] = [["k".repeat(100), "v".repeat(100)]];
  const heavy: Message["properties"] = { contentType, responseTopic, correlationData, userProperties };

  it("counts the topic, the payload and every property a delivery holds", () => {
    const base = { message: message("t", "p"), qos: 1 as const, retain: false, subscriptionIds: [] };
    const without = deliverySize(base);
    const each = (properties: Message["properties"]): number => deliverySize({ ...base, message: { ...base.message, properties } }) - without;
    expect(each({ contentType })).toBeGreaterThanOrEqual(100);
    expect(each({ responseTopic })).toBeGreaterThanOrEqual(100);
    expect(each({ correlationData })).toBeGreaterThanOrEqual(100);
    expect(each({ userProperties })).toBeGreaterThanOrEqual(200);
    expect(deliverySize({ ...base, message: message("t".repeat(100), "p") }) - without).toBeGreaterThanOrEqual(99);
    expect(deliverySize({ ...base, message: message("t", "p".repeat(101)) }) - without).toBe(100);
  });

  it("refuses for an offline session a message whose properties pass the bound, though its payload alone fits", () => {
    const light = message("t", "p");
    const bound = deliverySize({ message: light, qos: 1, retain: false, subscriptionIds: [] }) + 50;
    const { router } = newRouter({ queueLimits: { maxBytes: bound }, overflow: "drop-new" });
    const a = online(router, "a");
    router.subscribe("a", a.generation, [sub("t")]);
    router.disconnect("a", a.generation, { publishWill: false });
    expect(router.publish(message("t", "p", 1, { properties: heavy })).queued).toBe(0);
    expect(router.stats.dropped["queue-full"]).toBe(1);
    expect(router.publish(light).queued).toBe(1);
  });
});
