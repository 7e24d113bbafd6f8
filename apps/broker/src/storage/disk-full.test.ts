// A store whose writes fail (disk full, I/O error): commits back off instead of running every
// turn, what waits uncommitted is bounded, and the store says so until a commit succeeds again.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SqliteStore } from "./sqlite-store.js";
import { message, newRouter, online, sub, useTempDir } from "./store.test-helpers.js";

const dir = useTempDir();

function failingStore(options: { maxPendingBytes?: number; failing?: boolean } = {}): { store: SqliteStore; attempts: () => number; heal: () => void } {
  const { failing: initially = true, ...rest } = options;
  let failing = initially;
  let attempts = 0;
  const store = SqliteStore.open({
    dataDir: dir.path,
    synchronous: "normal",
    retryBackoffMs: { initial: 100, max: 400 },
    ...rest,
    hooks: {
      beforeCommit: () => {
        attempts += 1;
        if (failing) throw new Error("SQLITE_FULL: database or disk is full");
      },
    },
  });
  return { store, attempts: () => attempts, heal: () => { failing = false; } };
}

describe("SqliteStore on a failing disk", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("retries a failed commit after a doubling backoff, not on every change", async () => {
    const { store, attempts, heal } = failingStore();
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    // A change every millisecond for a second, as a busy broker records them.
    for (let ms = 0; ms < 1000; ms++) {
      router.publish(message("t", `m${String(ms)}`, 0));
      await vi.advanceTimersByTimeAsync(1);
    }
    // At 0, 100, 300 (100 + 200), 700 (300 + 400): four attempts in the second, not a thousand.
    expect(attempts()).toBe(4);
    expect(store.healthy).toBe(false);
    expect(store.stats.consecutiveFailures).toBe(4);
    heal();
    await vi.advanceTimersByTimeAsync(400);
    await store.flush(); // the retry, on the worker thread, lands
    expect(store.healthy).toBe(true);
    expect(store.pendingOperations).toBe(0);
    await store.close();
  });

  it("is not admitting while commits fail, and again once one succeeds", async () => {
    const { store, heal } = failingStore();
    const { router } = newRouter(store);
    online(router, "c");
    expect(store.admitting).toBe(true);
    const failed = expect(store.flush()).rejects.toThrow(/disk is full/);
    await vi.advanceTimersByTimeAsync(0);
    await failed;
    expect(store.admitting).toBe(false);
    heal();
    await vi.advanceTimersByTimeAsync(100);
    // The changes kept through the failure were written by the retry (on the worker thread).
    await expect(store.flush()).resolves.toBeUndefined();
    expect(store.admitting).toBe(true);
    await store.close();
  });

  it("stops admitting once more than maxPendingBytes wait uncommitted, before any failure", async () => {
    const { store } = failingStore({ maxPendingBytes: 10_000, failing: false });
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    // Queued for an offline session: each copy and its message row wait for the commit.
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "x".repeat(4000)));
    expect(store.admitting).toBe(true);
    router.publish(message("t", "y".repeat(8000)));
    expect(store.pendingBytes).toBeGreaterThan(10_000);
    expect(store.healthy).toBe(true);
    expect(store.admitting).toBe(false);
    const closing = store.close();
    await vi.advanceTimersByTimeAsync(0);
    await closing;
    expect(store.admitting).toBe(true);
  });
});
