// A session that ends with its connection is never resumed, also when it is taken over while
// still connected: [MQTT-3.1.2-6] (3.1.1 CleanSession=1) and MQTT 5 section 3.1.2.11 (expiry 0).
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("a takeover of a session that ends with its connection", () => {
  it("3.1.1: a CleanSession=1 session taken over by CleanSession=0 is not reused (session present 0)", () => {
    const { router } = newRouter();
    // The protocol layer maps 3.1.1 CleanSession=1 to clean start with expiry 0, CleanSession=0 to never-expires.
    const first = online(router, "c", { protocolVersion: 4, cleanStart: true, sessionExpiryInterval: 0 });
    router.subscribe("c", first.generation, [sub("t")]);
    const second = online(router, "c", { protocolVersion: 4, cleanStart: false, sessionExpiryInterval: 0xffffffff });
    expect(second.sessionPresent).toBe(false);
    router.publish(message("t", "after takeover"));
    expect(second.sink.sent).toEqual([]);
    expect(router.session("c")?.subscriptions.size).toBe(0);
  });

  it("MQTT 5: a session with expiry 0 taken over by Clean Start 0 starts clean, and its queued copies are gone", () => {
    const { router } = newRouter();
    const first = online(router, "c", { cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 1 });
    router.subscribe("c", first.generation, [sub("t")]);
    router.publish(message("t", "in flight"));
    router.publish(message("t", "queued"));
    const plan = router.plan(message("t", "planned before the takeover"));
    const second = online(router, "c", { cleanStart: false, sessionExpiryInterval: 3600 });
    expect(second.sessionPresent).toBe(false);
    expect(router.execute(plan)).toMatchObject({ queued: 0, stale: 1 });
    expect(second.sink.sent).toEqual([]);
    expect(router.stats.dropped["session-discarded"]).toBe(2);
  });

  it("publishes the displaced connection's will, as its session ended", () => {
    const { router } = newRouter();
    const watcher = online(router, "w");
    router.subscribe("w", watcher.generation, [sub("will")]);
    online(router, "c", { cleanStart: true, sessionExpiryInterval: 0, will: { message: message("will", "gone"), delaySeconds: 30 } });
    online(router, "c", { cleanStart: false, sessionExpiryInterval: 3600 });
    expect(watcher.sink.payloads()).toEqual(["gone"]);
  });

  it("still resumes a session with a non-zero expiry taken over by Clean Start 0", () => {
    const { router } = newRouter();
    const first = online(router, "c", { cleanStart: true, sessionExpiryInterval: 60 });
    router.subscribe("c", first.generation, [sub("t")]);
    const second = online(router, "c", { cleanStart: false, sessionExpiryInterval: 60 });
    expect(second.sessionPresent).toBe(true);
    router.publish(message("t", "kept"));
    expect(second.sink.payloads()).toEqual(["kept"]);
  });
});
