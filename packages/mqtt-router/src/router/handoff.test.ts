// Cluster handoff: a router forgets a session another node claimed, and adopts one a CONNECT here
// claims from the shared store's copy.
import { describe, expect, it } from "vitest";
import { SnapshotStore } from "./snapshot-store.js";
import type { SessionSnapshot } from "./store.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

// The stored session of `clientId` as node A's store holds it.
function storedSession(store: SnapshotStore, clientId: string): SessionSnapshot {
  const found = store.snapshot().sessions.find((s) => s.record.clientId === clientId);
  if (found === undefined) throw new Error(`no stored session ${clientId}`);
  return found;
}

describe("Router.forget", () => {
  it("drops the session without a store write; the displaced connection is stale; plans for it are refused", () => {
    const store = new SnapshotStore();
    const { router } = newRouter({ store });
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    const planned = router.plan(message("t", "planned"));
    const before = JSON.stringify(store.snapshot());
    expect(router.forget("c")).toBe(true);
    expect(router.session("c")).toBeUndefined();
    expect(router.execute(planned)).toMatchObject({ queued: 0, stale: 1 });
    router.publish(message("t", "after"));
    expect(c.sink.sent).toEqual([]);
    expect(router.subscribe("c", c.generation, [sub("u")]).ok).toBe(false);
    expect(router.disconnect("c", c.generation, { publishWill: true }).ok).toBe(false);
    expect(JSON.stringify(store.snapshot())).toBe(before);
    expect(router.forget("c")).toBe(false);
  });

  it("a forgotten session's will and expiry lapse here (the node that claimed it decides)", () => {
    const store = new SnapshotStore();
    const { router, clock } = newRouter({ store });
    const watcher = online(router, "w");
    router.subscribe("w", watcher.generation, [sub("will")]);
    const c = online(router, "c", { sessionExpiryInterval: 10, will: { message: message("will", "gone"), delaySeconds: 1 } });
    router.disconnect("c", c.generation, { publishWill: true });
    router.forget("c");
    clock.advance(20_000);
    expect(router.tick()).toEqual([]);
    expect(watcher.sink.payloads()).toEqual([]);
    expect(store.snapshot().sessions.map((s) => s.record.clientId).sort()).toEqual(["c", "w"]);
  });
});

describe("Router.adopt", () => {
  it("a session served on node A resumes on node B: subscriptions, queue, in-flight resent with DUP=1 first", () => {
    const storeA = new SnapshotStore();
    const a = newRouter({ store: storeA });
    const c = online(a.router, "c", { receiveMaximum: 1 });
    a.router.subscribe("c", c.generation, [sub("t")]);
    a.router.publish(message("t", "in-flight"));
    a.router.publish(message("t", "queued"));
    a.router.disconnect("c", c.generation, { publishWill: false });
    const id = c.sink.sent[0]?.packetId;
    const b = newRouter();
    b.router.adopt("c", storedSession(storeA, "c"));
    const back = online(b.router, "c");
    expect(back.sessionPresent).toBe(true);
    expect(back.sink.sent.map((p) => [new TextDecoder().decode(p.payload), p.dup, p.packetId === id])).toEqual([
      ["in-flight", true, true],
      ["queued", false, false],
    ]);
    b.router.publish(message("t", "new"));
    expect(back.sink.payloads().at(-1)).toBe("new");
  });

  it("replaces a stale local copy, and with nothing stored leaves no session (Session Present 0)", () => {
    const storeA = new SnapshotStore();
    const a = newRouter({ store: storeA });
    const c = online(a.router, "c");
    a.router.subscribe("c", c.generation, [sub("fresh")]);
    const b = newRouter();
    const old = online(b.router, "c");
    b.router.subscribe("c", old.generation, [sub("stale")]);
    b.router.adopt("c", storedSession(storeA, "c"));
    expect(b.router.subscriptionViews("c")?.map((s) => s.filter)).toEqual(["fresh"]);
    expect(b.router.subscribe("c", old.generation, [sub("x")]).ok).toBe(false);
    b.router.adopt("c", undefined);
    expect(b.router.session("c")).toBeUndefined();
    expect(online(b.router, "c").sessionPresent).toBe(false);
  });

  it("a session connected on the other node is taken over: a will without delay goes out, a delayed one is cancelled by the resume", () => {
    const storeA = new SnapshotStore();
    const a = newRouter({ store: storeA });
    online(a.router, "now", { will: { message: message("will", "now"), delaySeconds: 0 } });
    online(a.router, "later", { will: { message: message("will", "later"), delaySeconds: 5 } });
    const b = newRouter();
    const watcher = online(b.router, "w");
    b.router.subscribe("w", watcher.generation, [sub("will")]);
    b.router.adopt("now", storedSession(storeA, "now"));
    b.router.adopt("later", storedSession(storeA, "later"));
    expect(b.router.stats.takeovers).toBe(2);
    expect(watcher.sink.payloads()).toEqual(["now"]);
    expect(online(b.router, "later").sessionPresent).toBe(true);
    b.clock.advance(10_000);
    b.router.tick();
    expect(watcher.sink.payloads()).toEqual(["now"]);
  });

  it("a session with expiry 0 connected on the other node ends with that connection: the new one starts clean", () => {
    const storeA = new SnapshotStore();
    const a = newRouter({ store: storeA });
    const c = online(a.router, "c", { sessionExpiryInterval: 0 });
    a.router.subscribe("c", c.generation, [sub("t")]);
    const storeB = new SnapshotStore();
    const b = newRouter({ store: storeB });
    b.router.adopt("c", storedSession(storeA, "c"));
    expect(b.router.session("c")).toBeUndefined();
    expect(online(b.router, "c", { sessionExpiryInterval: 0 }).sessionPresent).toBe(false);
    expect(b.router.subscriptionViews("c")).toEqual([]);
  });

  it("refuses a snapshot of another client id", () => {
    const storeA = new SnapshotStore();
    const a = newRouter({ store: storeA });
    online(a.router, "c");
    expect(() => { newRouter().router.adopt("d", storedSession(storeA, "c")); }).toThrow(/not d/);
  });
});
