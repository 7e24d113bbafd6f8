// Flow control marks: a congested online queue is reported so the app can slow its publishers.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("router flow control marks", () => {
  it("reports an online subscriber whose queue reached half its bound as congested", () => {
    const { router } = newRouter({ queueLimits: { maxCount: 8 } });
    const c = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", c.generation, [sub("t")]);
    const outcomes = [1, 2, 3, 4].map((i) => router.publish(message("t", String(i))));
    expect(outcomes.map((o) => o.congested)).toEqual([[], [], [], ["c"]]);
    expect(router.stats.droppedTotal).toBe(0);
  });

  it("reports a congested queue by bytes too", () => {
    const { router } = newRouter({ queueLimits: { maxBytes: 1000 } });
    const c = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", c.generation, [sub("t")]);
    expect(router.publish(message("t", "x".repeat(600))).congested).toEqual(["c"]);
  });

  it("stays backlogged until acknowledgements bring the queue down to a quarter of its bound", () => {
    const { router } = newRouter({ queueLimits: { maxCount: 8 } });
    const c = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", c.generation, [sub("t")]);
    for (let i = 0; i < 4; i++) router.publish(message("t", String(i)));
    const backlog: boolean[] = [];
    for (let i = 0; i < 2; i++) {
      router.acknowledge("c", c.generation, c.sink.sent.at(-1)?.packetId ?? 0);
      backlog.push(router.backlogged("c"));
    }
    expect(backlog).toEqual([true, false]);
  });

  it("never reports an offline session: its bounds and overflow policy apply instead", () => {
    const { router } = newRouter({ queueLimits: { maxCount: 4 } });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    const outcomes = [1, 2, 3, 4, 5].map((i) => router.publish(message("t", String(i))));
    expect(outcomes.flatMap((o) => o.congested)).toEqual([]);
    expect(router.backlogged("c")).toBe(false);
    expect(router.stats.dropped.evicted).toBe(1);
  });
});
