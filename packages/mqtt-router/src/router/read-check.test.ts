// The ACL at delivery: a session's read check decides per message, whatever filter matched.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

const notSecret = (topic: string): boolean => !topic.startsWith("secret");

describe("a session's read check", () => {
  it("keeps denied topics from a wildcard subscription that overlaps them, and delivers the rest", () => {
    const { router } = newRouter();
    const c = online(router, "c", { readable: notSecret });
    router.subscribe("c", c.generation, [sub("#"), sub("+/+")]);
    router.publish(message("secret/x", "denied"));
    router.publish(message("public/x", "allowed"));
    expect(c.sink.payloads()).toEqual(["allowed"]);
    expect(router.publish(message("secret/y", "denied")).noMatchingSubscribers).toBe(true);
  });

  it("keeps retained messages on denied topics from a new subscription", () => {
    const { router } = newRouter();
    router.publish(message("secret/r", "denied", 1, { retain: true }));
    router.publish(message("public/r", "allowed", 1, { retain: true }));
    const c = online(router, "c", { readable: notSecret });
    router.subscribe("c", c.generation, [sub("#")]);
    expect(c.sink.payloads()).toEqual(["allowed"]);
  });

  it("is asked per message, so a rule that changes (a reload) stops later deliveries at once", () => {
    const { router } = newRouter();
    let denied = "none";
    const c = online(router, "c", { readable: (topic) => topic !== denied });
    router.subscribe("c", c.generation, [sub("t/#")]);
    router.publish(message("t/a", "before"));
    denied = "t/a";
    router.publish(message("t/a", "after"));
    router.publish(message("t/b", "other"));
    expect(c.sink.payloads()).toEqual(["before", "other"]);
  });

  it("checks copies queued before it applied (offline, under an earlier identity) as they go out", () => {
    const { router } = newRouter();
    const first = online(router, "c");
    router.subscribe("c", first.generation, [sub("#")]);
    router.disconnect("c", first.generation, { publishWill: false });
    router.publish(message("secret/x", "queued while offline"));
    router.publish(message("public/x", "also queued"));
    const second = online(router, "c", { readable: notSecret });
    expect(second.sink.payloads()).toEqual(["also queued"]);
    expect(router.stats.dropped["not-readable"]).toBe(1);
    expect(router.session("c")?.queue.count).toBe(1); // the one in flight
  });

  it("applies to a shared subscription's chosen member", () => {
    const { router } = newRouter();
    const c = online(router, "c", { readable: notSecret });
    router.subscribe("c", c.generation, [sub("$share/g/#")]);
    router.publish(message("secret/x", "denied"));
    router.publish(message("public/x", "allowed"));
    expect(c.sink.payloads()).toEqual(["allowed"]);
  });
});
