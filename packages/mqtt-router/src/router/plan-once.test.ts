// A plan is executed at most once, and only by the router that made it.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("executing a plan", () => {
  it("a second time is refused as stale and delivers nothing more", () => {
    const { router } = newRouter();
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    const plan = router.plan(message("t", "once"));
    expect(router.execute(plan)).toMatchObject({ queued: 1, refused: false });
    expect(router.execute(plan)).toEqual({ queued: 0, stale: 1, dropped: 0, noMatchingSubscribers: false, refused: true, retainRefused: false, congested: [] });
    expect(c.sink.payloads()).toEqual(["once"]);
    expect(router.stats.published).toBe(1);
  });

  it("made by another router is refused as stale and touches neither its sessions nor the retained store", () => {
    const { router: before } = newRouter();
    const { router: after } = newRouter();
    const c = online(before, "c");
    before.subscribe("c", c.generation, [sub("t")]);
    const plan = before.plan(message("t", "from the old router", 1, { retain: true }));
    expect(after.execute(plan)).toMatchObject({ queued: 0, stale: 1, refused: true });
    expect(c.sink.sent).toEqual([]);
    expect(after.retainedCount).toBe(0);
    // It is still the old router's to execute once.
    expect(before.execute(plan)).toMatchObject({ queued: 1 });
  });

  it("counts a stale plan's QoS 0 copy for a discarded offline session as stale, not as an offline drop", () => {
    const { router } = newRouter();
    const c = online(router, "c", { sessionExpiryInterval: 0 });
    router.subscribe("c", c.generation, [sub("t", 0)]);
    const plan = router.plan(message("t", "qos 0", 0));
    router.disconnect("c", c.generation, { publishWill: false });
    expect(router.execute(plan)).toMatchObject({ stale: 1, dropped: 0 });
    expect(router.stats.dropped["stale-plan"]).toBe(1);
    expect(router.stats.dropped["offline-qos0"]).toBe(0);
  });
});
