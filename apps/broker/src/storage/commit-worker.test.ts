// Group commit on the worker thread: the next batch is gathered while one is in flight.
import { describe, expect, it } from "vitest";
import { StoreError } from "./errors.js";
import { SqliteStore } from "./sqlite-store.js";
import { countRows, message, newRouter, online, openCounting, sub, useTempDir } from "./store.test-helpers.js";

const dir = useTempDir();

const openOnWorker = (options: { fail?: () => boolean } = {}): ReturnType<typeof openCounting> => openCounting(dir.path, options);

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("SqliteStore with commits on a worker thread", () => {
  it("resolves a flush only after the commit covering it, and the rows are in the file", async () => {
    const { store, commits } = openOnWorker();
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.publish(message("t", "kept"));
    const seen: number[] = [];
    const flushed = store.flush().then(() => seen.push(commits.length));
    await turn();
    expect(seen).toEqual([]);
    await flushed;
    expect(seen).toEqual([1]);
    await store.close();
    expect(countRows(store.file)).toMatchObject({ sessions: 1, subscriptions: 1, deliveries: 1, messages: 1 });
  });

  it("gathers what is recorded while a batch is in flight into the next batch", async () => {
    const { store, commits } = openOnWorker();
    const { router } = newRouter(store);
    online(router, "a");
    const first = store.flush();
    await turn(); // the batch is with the worker now
    expect(store.flush()).toBe(first); // nothing new: the batch in flight covers it all
    online(router, "b");
    const second = store.flush();
    expect(second).not.toBe(first);
    await first;
    expect(commits.length).toBe(1);
    await second;
    expect(commits.length).toBe(2);
    expect(store.pendingOperations).toBe(0);
    await store.close();
    expect(countRows(store.file)).toMatchObject({ sessions: 2 });
  });

  it("retries a failed batch before the changes recorded after it, in one commit", async () => {
    let failing = false;
    const { store, commits } = openOnWorker({ fail: () => failing });
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("a")]);
    await store.flush();
    failing = true;
    router.subscribe("c", c.generation, [sub("b")]);
    await expect(store.flush()).rejects.toBeInstanceOf(StoreError);
    expect(store.healthy).toBe(false);
    failing = false;
    // Recorded as the difference to the file *after* the failed batch: applied before it, the
    // subscription to "b" would come back.
    router.unsubscribe("c", c.generation, ["b"]);
    await store.flush();
    expect(store.stats).toEqual({ commits: 2, failures: 1, consecutiveFailures: 0 });
    expect(commits.length).toBe(2);
    await store.close();
    expect(countRows(store.file)).toMatchObject({ subscriptions: 1 });
  });

  it("counts the bytes handed to the worker as pending until they are committed", async () => {
    const { store } = openOnWorker();
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    await store.flush();
    router.publish(message("t", "x".repeat(1000)));
    const flushed = store.flush();
    const before = store.pendingBytes;
    await turn(); // in flight
    expect(store.pendingBytes).toBe(before);
    await flushed;
    expect(store.pendingBytes).toBe(0);
    await store.close();
  });

  it("commits what is pending on close, after the batch in flight, and releases the file", async () => {
    const { store } = openOnWorker();
    const { router } = newRouter(store);
    online(router, "a");
    void store.flush();
    await turn();
    online(router, "b");
    await store.close();
    const again = SqliteStore.open({ dataDir: dir.path });
    expect(again.load().sessions.map((s) => s.record.clientId).sort()).toEqual(["a", "b"]);
    await again.close();
  });
});
