// The Redis store's group commit and fencing against a private redis-server.
import { describe, expect, it } from "vitest";
import { ClusterKeys } from "../cluster/keys.js";
import { Ownership } from "../cluster/ownership.js";
import { hasRedis, useRedis } from "../cluster/redis.test-helpers.js";
import { StoreOpenError } from "./errors.js";
import { loadRedisSnapshot } from "./redis-load.js";
import { RedisStore, type RedisStoreOptions } from "./redis-store.js";
import { message, newRouter, online, sub } from "./store.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("s:");

async function open(options: Partial<RedisStoreOptions> = {}): Promise<RedisStore> {
  return RedisStore.open({ url: redis.server.url, prefix: keys.prefix, nodeId: "node-a", ...options });
}

describe.skipIf(!hasRedis)("RedisStore", () => {
  it("resolves a flush once its batch is in Redis; changes made meanwhile wait for the next batch", async () => {
    const commits: number[] = [];
    const store = await open({ hooks: { onCommit: (info) => commits.push(info.operations) } });
    const { router } = newRouter(store);
    const a = online(router, "a", { cleanStart: true });
    router.subscribe("a", a.generation, [sub("t")]);
    const first = store.flush();
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is now in flight
    router.unbind("a", a.generation);
    router.publish(message("t", "queued"));
    const second = store.flush();
    expect(second).not.toBe(first);
    await first;
    await second;
    expect(commits.length).toBe(2);
    const conn = await redis.connect();
    const stored = await loadRedisSnapshot(conn, keys);
    expect(stored.sessions.map((s) => [s.record.clientId, s.subscriptions.map((x) => x.filter), s.deliveries.length])).toEqual([["a", ["t"], 1]]);
    await store.close();
  });

  it("refuses a session's writes once another node claimed its client id, reports it, and keeps the other sessions' writes (seed 000 across nodes)", async () => {
    const fenced: string[] = [];
    const store = await open({ hooks: { onFenced: (id) => fenced.push(id) } });
    const { router } = newRouter(store);
    for (const id of ["old", "other"]) {
      const c = online(router, id, { cleanStart: true });
      router.subscribe(id, c.generation, [sub("t")]);
      router.unbind(id, c.generation);
    }
    await store.flush();
    const conn = await redis.connect();
    await new Ownership(conn, keys, "node-b").claim("old"); // a takeover on another node
    router.publish(message("t", "planned on node a"));
    await store.flush();
    expect(fenced).toEqual(["old"]);
    expect(await conn.hlen(keys.deliveries("old"))).toBe(0);
    expect(await conn.hlen(keys.deliveries("other"))).toBe(1);
    await store.close();
  });

  it("a delivery committed before another node's claim is there for that node to resume", async () => {
    const store = await open();
    const { router } = newRouter(store);
    const c = online(router, "c", { cleanStart: true });
    router.subscribe("c", c.generation, [sub("t")]);
    router.unbind("c", c.generation);
    router.publish(message("t", "acknowledged"));
    await store.flush();
    const conn = await redis.connect();
    await new Ownership(conn, keys, "node-b").claim("c");
    const seen = await loadRedisSnapshot(conn, keys);
    expect(seen.sessions[0]?.deliveries.map((d) => new TextDecoder().decode(d.delivery.message.payload))).toEqual(["acknowledged"]);
    await store.close();
  });

  it("a reconnect claims the client id again under a new token; a restarted node claims what it restores", async () => {
    const store = await open();
    const { router } = newRouter(store);
    online(router, "c", { cleanStart: true });
    await store.flush();
    const first = store.tokenOf("c");
    online(router, "c", { cleanStart: false });
    await store.flush();
    const second = store.tokenOf("c");
    expect(Number(second)).toBeGreaterThan(Number(first));
    await store.close();
    const reopened = await open();
    expect(Number(reopened.tokenOf("c"))).toBeGreaterThan(Number(second));
    await reopened.close();
  });

  it("names the server without its credentials when it cannot be reached", async () => {
    const error = await RedisStore.open({ url: "redis://user:secret@127.0.0.1:1", nodeId: "n" }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect(String(error)).toContain("redis://127.0.0.1:1");
    expect(String(error)).not.toContain("secret");
  });
});
