// Group commit: changes are recorded synchronously and written in one transaction per turn.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { StoreError } from "./errors.js";
import { SqliteStore, type CommitInfo } from "./sqlite-store.js";
import { countRows, message, newRouter, online, openCounting as openCountingIn, sub, useTempDir } from "./store.test-helpers.js";

const dir = useTempDir();

const openCounting = (options: { fail?: () => boolean } = {}): ReturnType<typeof openCountingIn> => openCountingIn(dir.path, options);

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("SqliteStore group commit", () => {
  it("writes every change of one turn in one transaction", async () => {
    const { store, commits } = openCounting();
    const { router } = newRouter(store);
    for (let i = 0; i < 50; i++) {
      const c = online(router, `c${String(i)}`);
      router.subscribe(`c${String(i)}`, c.generation, [sub("t")]);
    }
    router.publish(message("t", "to all"));
    await store.flush();
    expect(commits.length).toBe(1);
    await store.close();
  });

  it("commits on the next turn even if nobody flushes", async () => {
    const { store, commits } = openCounting();
    const { router } = newRouter(store);
    online(router, "c");
    // Nobody flushes: the commit (on the worker thread) lands within a bounded number of turns.
    for (let i = 0; i < 100_000 && commits.length === 0; i++) await turn();
    expect(commits.length).toBe(1);
    await store.close();
  });

  it("does not resolve a flush before the commit covering earlier changes", async () => {
    const { store, commits } = openCounting();
    const { router } = newRouter(store);
    online(router, "c");
    const seen: number[] = [];
    const flushed = store.flush().then(() => seen.push(commits.length));
    expect(seen).toEqual([]);
    await flushed;
    expect(seen).toEqual([1]);
    await store.close();
  });

  it("hands every flush of one pending batch the same commit ticket, and the next batch a new one", async () => {
    const { store, commits } = openCounting();
    const { router } = newRouter(store);
    const a = online(router, "a");
    const first = store.flush();
    router.subscribe("a", a.generation, [sub("t")]); // recorded after the first flush, same batch
    const again = store.flush();
    expect(again).toBe(first);
    await first;
    expect(commits.length).toBe(1);
    expect(store.pendingOperations).toBe(0); // the ticket covered the later change too
    online(router, "b");
    const next = store.flush();
    expect(next).not.toBe(first);
    await next;
    expect(commits.length).toBe(2);
    await store.close();
  });

  it("resolves a flush at once when nothing is pending", async () => {
    const { store, commits } = openCounting();
    await store.flush();
    expect(commits.length).toBe(0);
    await store.close();
  });

  it("never writes a delivery queued and removed in the same turn", async () => {
    const { store, commits } = openCounting();
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    await store.flush();
    router.publish(message("t", "quick"));
    router.acknowledge("c", c.generation, c.sink.sent[0]?.packetId ?? -1);
    expect(store.pendingOperations).toBe(0);
    await store.flush();
    expect(commits.length).toBe(1);
    await store.close();
  });

  it("rejects the waiting flushes with a StoreError when the transaction fails", async () => {
    let failing = false;
    const { store } = openCounting({ fail: () => failing });
    const { router } = newRouter(store);
    online(router, "c");
    failing = true;
    const first = store.flush();
    const second = store.flush();
    await expect(first).rejects.toBeInstanceOf(StoreError);
    await expect(second).rejects.toMatchObject({ kind: "commit-failed" });
    failing = false;
    await store.close();
  });

  it("keeps the previous state on disk when a transaction fails", async () => {
    let failing = false;
    const { store } = openCounting({ fail: () => failing });
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("kept")]);
    await store.flush();
    failing = true;
    router.subscribe("c", c.generation, [sub("lost"), sub("also-lost")]);
    await expect(store.flush()).rejects.toBeInstanceOf(StoreError);
    // Still failing at close: the process goes down with the changes unwritten, like a crash.
    await expect(store.close()).rejects.toBeInstanceOf(StoreError);
    const db = new Database(store.file, { readonly: true });
    const filters = db.prepare("SELECT filter FROM subscriptions").pluck().all();
    db.close();
    expect(filters).toEqual(["kept"]);
  });

  it("retries the failed changes with the next commit", async () => {
    let failing = true;
    const { store } = openCounting({ fail: () => failing });
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    await store.flush().catch(() => undefined);
    failing = false;
    await store.flush();
    expect(store.stats).toEqual({ commits: 1, failures: 1, consecutiveFailures: 0 });
    await store.close();
    expect(countRows(store.file)).toMatchObject({ sessions: 1, subscriptions: 1 });
  });

  it("gathers the changes of several turns into one commit when commits run back to back", async () => {
    const commits: CommitInfo[] = [];
    const store = SqliteStore.open({ dataDir: dir.path, commitDelayMs: 50, hooks: { onCommit: (info) => commits.push(info) } });
    const { router } = newRouter(store);
    online(router, "a");
    await store.flush();
    online(router, "b");
    await turn();
    online(router, "c");
    await store.flush();
    expect(commits.length).toBe(2);
    await store.close();
  });

  it("writes what is pending when closed without a flush", async () => {
    const { store } = openCounting();
    const { router } = newRouter(store);
    online(router, "c");
    await store.close();
    expect(countRows(store.file)).toMatchObject({ sessions: 1 });
  });

  it("refuses changes after close", async () => {
    const { store } = openCounting();
    await store.close();
    expect(() => { store.sessionDeleted("c"); }).toThrow(StoreError);
  });
});
