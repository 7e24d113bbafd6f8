// planDelivery's single-match shortcut (fan-in: one session matches, no Map, no Merged record) and
// its reuse of one planning state across messages: per-publisher order (router invariant 3) and
// the effective QoS (invariant 5) must come out as on the general path.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("planning a message that one session matches", () => {
  it("keeps each publisher's order and downgrades to the granted QoS, with copies queued behind the quota", () => {
    const { router } = newRouter();
    // Receive Maximum 1: every copy after the first waits on the queue, so a copy that shared
    // state with a later plan would show up changed when it finally goes out.
    const c = online(router, "sub", { receiveMaximum: 1 });
    router.subscribe("sub", c.generation, [sub("bench/+/data", 1)]);
    const published: { payload: string; qos: 0 | 1 | 2 }[] = [];
    for (let i = 0; i < 6; i++) {
      for (const p of ["a", "b"]) {
        const qos = ([2, 1, 0] as const)[i % 3] ?? 1;
        published.push({ payload: `${p}${String(i)}`, qos });
        router.publish(message(`bench/${p}/data`, `${p}${String(i)}`, qos, { origin: p }));
      }
    }
    const seen: { payload: string; qos: number }[] = [];
    for (let guard = 0; guard < 20 && seen.length < published.length; guard++) {
      const next = c.sink.sent[seen.length];
      if (next === undefined) break;
      seen.push({ payload: new TextDecoder().decode(next.payload), qos: next.qos });
      if (next.packetId !== undefined) router.acknowledge("sub", c.generation, next.packetId);
    }
    // QoS 0 copies go out at once, ahead of QoS 1 copies waiting for the quota; per publisher and
    // per QoS level the order is the publish order.
    const expected = published.map((m) => ({ payload: m.payload, qos: Math.min(m.qos, 1) }));
    expect([...seen].sort((x, y) => x.payload.localeCompare(y.payload))).toEqual([...expected].sort((x, y) => x.payload.localeCompare(y.payload)));
    for (const p of ["a", "b"]) {
      const mine = (list: readonly { payload: string; qos: number }[]): string[] => list.filter((m) => m.payload.startsWith(p) && m.qos === 1).map((m) => m.payload);
      expect(mine(seen)).toEqual(mine(expected));
    }
  });

  it("merges overlapping filters of the one session: the highest granted QoS, every identifier", () => {
    const { router } = newRouter();
    const c = online(router, "s");
    router.subscribe("s", c.generation, [sub("t/+", 0)], 1);
    router.subscribe("s", c.generation, [sub("t/#", 1)], 2);
    router.publish(message("t/x", "both", 2));
    expect(c.sink.sent).toHaveLength(1);
    expect(c.sink.sent.map((p) => ({ qos: p.qos, ids: [...(p.properties.subscriptionIdentifiers ?? [])].sort() }))).toEqual([{ qos: 1, ids: [1, 2] }]);
  });

  it("carries the first session's merged matches over when a second session matches", () => {
    const { router } = newRouter();
    const a = online(router, "a");
    const b = online(router, "b");
    router.subscribe("a", a.generation, [sub("t/#", 0)], 1);
    router.subscribe("a", a.generation, [sub("t/+", 1)], 2);
    router.subscribe("b", b.generation, [sub("t/x", 2)]);
    router.publish(message("t/x", "m", 2));
    expect(a.sink.sent.map((p) => ({ qos: p.qos, ids: [...(p.properties.subscriptionIdentifiers ?? [])].sort() }))).toEqual([{ qos: 1, ids: [1, 2] }]);
    expect(b.sink.sent.map((p) => p.qos)).toEqual([2]);
  });

  it("starts each message afresh: nothing of the previous plan's match carries over", () => {
    const { router } = newRouter();
    const a = online(router, "a");
    const b = online(router, "b");
    router.subscribe("a", a.generation, [sub("one", 2)], 7);
    router.subscribe("b", b.generation, [sub("two", 0)]);
    expect(router.publish(message("one", "1", 2)).queued).toBe(1);
    expect(router.publish(message("two", "2", 2)).queued).toBe(1);
    expect(router.publish(message("none", "3", 2)).noMatchingSubscribers).toBe(true);
    expect(a.sink.sent.map((p) => [p.qos, p.properties.subscriptionIdentifiers])).toEqual([[2, [7]]]);
    expect(b.sink.sent.map((p) => [p.qos, p.properties.subscriptionIdentifiers])).toEqual([[0, undefined]]);
  });
});
