// Read-only views for operators, and the two administrative operations: ending an offline session
// and clearing a retained topic.
import { describe, expect, it } from "vitest";
import type { Router } from "./router.js";
import { SnapshotStore } from "./snapshot-store.js";
import { message, newRouter, online, recordingSink, sub } from "./router.test-helpers.js";

const text = (payload: Uint8Array): string => new TextDecoder().decode(payload);

function retain(router: Router, topic: string, payload = topic): void {
  router.publish(message(topic, payload, 0, { retain: true }));
}

describe("session views", () => {
  it("show a connected session's protocol, queue and subscriptions without an expiry time", () => {
    const { router } = newRouter();
    const c = online(router, "c", { receiveMaximum: 1, protocolVersion: 4 });
    router.subscribe("c", c.generation, [sub("t/#", 1)]);
    router.publish(message("t/1", "a"));
    router.publish(message("t/2", "b"));
    expect(router.sessionView("c")).toEqual({
      clientId: "c",
      connected: true,
      protocolVersion: 4,
      expiryInterval: 3600,
      queued: 1,
      inflight: 1,
      queuedBytes: expect.any(Number) as number,
      subscriptions: 1,
      willArmed: false,
    });
  });

  it("show an offline session's disconnect time and when it will expire", () => {
    const { router, clock } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 60 });
    router.disconnect("c", c.generation, { publishWill: false });
    const at = clock.now();
    expect(router.sessionView("c")).toMatchObject({ connected: false, disconnectedAt: at, expiresAt: at + 60_000 });
    expect(router.sessionView("c")).not.toHaveProperty("protocolVersion");
  });

  it("give no expiry time to a session that never expires", () => {
    const { router } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 0xffffffff });
    router.disconnect("c", c.generation, { publishWill: false });
    expect(router.sessionView("c")).not.toHaveProperty("expiresAt");
  });

  it("are frozen copies that later changes leave as they were", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    const before = router.sessionView("c");
    router.subscribe("c", c.generation, [sub("t")]);
    expect([Object.isFrozen(before), before?.subscriptions, router.sessionView("c")?.subscriptions]).toEqual([true, 0, 1]);
  });

  it("are undefined for an unknown client id", () => {
    expect(newRouter().router.sessionView("nobody")).toBeUndefined();
  });

  it("page through sessions in client id order with a cursor", () => {
    const { router } = newRouter();
    for (const id of ["d", "b", "a", "c", "e"]) online(router, id);
    const first = router.sessionViews({ limit: 2 });
    const second = router.sessionViews({ after: first.next, limit: 2 });
    const third = router.sessionViews({ after: second.next, limit: 2 });
    expect([first, second, third].map((page) => [page.sessions.map((s) => s.clientId), page.next])).toEqual([
      [["a", "b"], "b"],
      [["c", "d"], "d"],
      [["e"], undefined],
    ]);
  });
});

describe("subscription views", () => {
  it("list every option, the subscription identifier and the share group, in filter order", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("z/+", 2, { noLocal: true, retainAsPublished: true, retainHandling: 2 })], 7);
    router.subscribe("c", c.generation, [sub("$share/g/a/#", 1)]);
    expect(router.subscriptionViews("c")).toEqual([
      { filter: "$share/g/a/#", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0, share: { group: "g", filter: "a/#" } },
      { filter: "z/+", qos: 2, noLocal: true, retainAsPublished: true, retainHandling: 2, subscriptionId: 7 },
    ]);
  });

  it("are undefined for an unknown client id", () => {
    expect(newRouter().router.subscriptionViews("nobody")).toBeUndefined();
  });
});

describe("queue totals", () => {
  it("sum queued and in-flight deliveries over online and offline sessions", () => {
    const { router } = newRouter();
    const a = online(router, "a", { receiveMaximum: 1 });
    const b = online(router, "b");
    router.subscribe("a", a.generation, [sub("t")]);
    router.subscribe("b", b.generation, [sub("t")]);
    router.disconnect("b", b.generation, { publishWill: false });
    router.publish(message("t", "1"));
    router.publish(message("t", "2"));
    expect(router.queueTotals).toEqual({ queued: 3, inflight: 1 });
  });
});

describe("retained pages", () => {
  it("list matching retained messages in topic order, a topic before the ones below it", () => {
    const { router } = newRouter();
    for (const topic of ["b/2", "a", "b", "a/x/1", "b/1", "c"]) retain(router, topic);
    expect(router.retainedPage("#", { limit: 10 }).messages.map((m) => m.topic)).toEqual(["a", "a/x/1", "b", "b/1", "b/2", "c"]);
  });

  it("page with a cursor until there is no next page", () => {
    const { router } = newRouter();
    for (const topic of ["b/2", "a", "b", "a/x/1", "b/1", "c"]) retain(router, topic);
    const pages: string[][] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = router.retainedPage("#", { after, limit: 4 });
      pages.push(page.messages.map((m) => m.topic));
      after = page.next;
      if (after === undefined) break;
    }
    expect(pages).toEqual([["a", "a/x/1", "b", "b/1"], ["b/2", "c"]]);
  });

  it("resume after a cursor topic that was deleted in between", () => {
    const { router } = newRouter();
    for (const topic of ["a", "b", "b/1", "c"]) retain(router, topic);
    const first = router.retainedPage("#", { limit: 2 });
    router.clearRetained("b");
    expect([first.next, router.retainedPage("#", { after: first.next, limit: 10 }).messages.map((m) => m.topic)]).toEqual(["b", ["b/1", "c"]]);
  });

  it("apply the filter's wildcards and keep $ topics from a leading wildcard [MQTT-4.7.2-1]", () => {
    const { router } = newRouter();
    for (const topic of ["s/1/temp", "s/2/temp", "s/2/hum", "s", "$SYS/x"]) retain(router, topic);
    const topics = (filter: string): string[] => router.retainedPage(filter, { limit: 10 }).messages.map((m) => m.topic);
    expect([topics("s/+/temp"), topics("s/#"), topics("#"), topics("$SYS/#"), topics("+")]).toEqual([
      ["s/1/temp", "s/2/temp"],
      ["s", "s/1/temp", "s/2/hum", "s/2/temp"],
      ["s", "s/1/temp", "s/2/hum", "s/2/temp"],
      ["$SYS/x"],
      ["s"],
    ]);
  });

  it("skip expired messages without deleting them from the store's records", () => {
    const store = new SnapshotStore();
    const { router, clock } = newRouter({ store });
    router.publish(message("t", "old", 0, { retain: true, expiresAt: clock.now() + 1000 }));
    clock.advance(1000);
    expect([router.retainedPage("#", { limit: 10 }).messages, store.snapshot().retained.length]).toEqual([[], 1]);
  });

  it("hand out copies of payloads, so changing one changes nothing retained", () => {
    const { router } = newRouter();
    retain(router, "t", "abc");
    const [view] = router.retainedPage("t", { limit: 1 }).messages;
    view?.payload.fill(0);
    expect(text(router.retainedPage("t", { limit: 1 }).messages[0]?.payload ?? new Uint8Array())).toBe("abc");
  });

  it("walk a deep store without recursion", () => {
    const { router } = newRouter();
    const deep = Array.from({ length: 20_000 }, (_, i) => String(i % 10)).join("/");
    retain(router, deep);
    expect(router.retainedPage("#", { limit: 1 }).messages.map((m) => m.topic)).toEqual([deep]);
  });
});

describe("ending a session on request", () => {
  it("discards an offline session's subscriptions and queue and deletes it from the store", () => {
    const store = new SnapshotStore();
    const { router } = newRouter({ store });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "queued"));
    expect(router.endSession("c")).toEqual({ ok: true, discarded: 1 });
    expect([router.sessionView("c"), router.subscriptionCount, router.stats.dropped["session-discarded"], store.snapshot().sessions]).toEqual([undefined, 0, 1, []]);
  });

  it("makes a later resume start without a session (Session Present 0)", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.disconnect("c", c.generation, { publishWill: false });
    router.endSession("c");
    expect(online(router, "c").sessionPresent).toBe(false);
  });

  it("publishes a will still waiting for its delay, as the end of a session does [MQTT-3.1.2-8]", () => {
    const { router } = newRouter();
    const watcher = online(router, "w");
    router.subscribe("w", watcher.generation, [sub("will")]);
    const sink = recordingSink();
    const outcome = router.connect({
      clientId: "c",
      cleanStart: true,
      sessionExpiryInterval: 3600,
      receiveMaximum: 10,
      protocolVersion: 5,
      sink,
      will: { message: message("will", "gone"), delaySeconds: 600 },
    });
    router.disconnect("c", outcome.generation, { publishWill: true });
    router.endSession("c");
    expect(watcher.sink.payloads()).toEqual(["gone"]);
  });

  it("refuses a connected session and an unknown one", () => {
    const { router } = newRouter();
    online(router, "c");
    expect([router.endSession("c"), router.endSession("nobody"), router.sessionView("c")?.connected]).toEqual([
      { ok: false, reason: "connected" },
      { ok: false, reason: "unknown" },
      true,
    ]);
  });

  it("refuses a plan made for the ended session (seed 000)", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    const plan = router.plan(message("t", "stale"));
    router.endSession("c");
    const fresh = online(router, "c");
    router.subscribe("c", fresh.generation, [sub("t")]);
    expect([router.execute(plan).stale, fresh.sink.payloads()]).toEqual([1, []]);
  });
});

describe("clearing a retained topic", () => {
  it("deletes it, records the deletion and routes nothing", () => {
    const store = new SnapshotStore();
    const { router } = newRouter({ store });
    retain(router, "t");
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t", 1, { retainHandling: 2 })]);
    const routed = router.stats.published;
    expect([router.clearRetained("t"), router.retainedCount, store.snapshot().retained, c.sink.sent, router.stats.published]).toEqual([true, 0, [], [], routed]);
  });

  it("means a new subscriber gets nothing retained", () => {
    const { router } = newRouter();
    retain(router, "t");
    router.clearRetained("t");
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    expect(c.sink.sent).toEqual([]);
  });

  it("is false for a topic without a retained message", () => {
    expect(newRouter().router.clearRetained("t")).toBe(false);
  });
});
