// The router's onPublished option: told once of every message it accepted, after its plan
// executed, and never of a refused plan.
import { describe, expect, it } from "vitest";
import type { Message } from "./message.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("onPublished", () => {
  it("is told of each accepted message once, after its copies are queued and its retained state stored", () => {
    const told: string[] = [];
    const { router } = newRouter({
      onPublished: (m: Message) => {
        told.push(`${m.topic} queued:${String(c.sink.payloads().length)} retained:${String(router.retainedCount)}`);
      },
    });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t/#")]);
    router.publish(message("t/1", "one", 1, { retain: true }));
    router.publish(message("t/2", "two", 0));
    expect(told).toEqual(["t/1 queued:1 retained:1", "t/2 queued:2 retained:1"]);
  });

  it("is not told of a plan refused as stale, nor twice of a plan executed twice", () => {
    const told: string[] = [];
    const { router } = newRouter({ onPublished: (m: Message) => told.push(m.topic) });
    const { router: other } = newRouter();
    const plan = router.plan(message("t", "once"));
    expect(told).toEqual([]);
    router.execute(plan);
    router.execute(plan);
    router.execute(other.plan(message("elsewhere", "x")));
    expect(told).toEqual(["t"]);
  });

  it("is told of a will, with its client as the origin", () => {
    const told: Message[] = [];
    const { router } = newRouter({ onPublished: (m: Message) => told.push(m) });
    const c = online(router, "c", { will: { message: message("will/c", "bye", 1, { origin: "c" }), delaySeconds: 0 } });
    router.disconnect("c", c.generation, { publishWill: true });
    expect(told.map((m) => [m.topic, m.origin])).toEqual([["will/c", "c"]]);
  });
});
