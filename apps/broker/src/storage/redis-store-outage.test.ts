// The Redis store when its server goes away: what a flush covered survives a SIGKILL of Redis with
// AOF `appendfsync always`, and while Redis is down nothing is acknowledged and QoS 1/2 is refused.
import { describe, expect, it } from "vitest";
import { ClusterKeys } from "../cluster/keys.js";
import { hasRedis, useRedis } from "../cluster/redis.test-helpers.js";
import { StoreError } from "./errors.js";
import { RedisStore } from "./redis-store.js";
import { message, newRouter, online, sub } from "./store.test-helpers.js";

const redis = useRedis({ appendfsync: "always" });
const keys = new ClusterKeys("o:");

const open = (): Promise<RedisStore> => RedisStore.open({ url: redis.server.url, prefix: keys.prefix, nodeId: "node-a", retryBackoffMs: { initial: 10, max: 50 } });

describe.skipIf(!hasRedis)("RedisStore when Redis fails", () => {
  it("keeps everything a resolved flush covered across a SIGKILL of Redis (AOF appendfsync always)", async () => {
    const store = await open();
    const { router } = newRouter(store);
    const c = online(router, "c", { cleanStart: true, sessionExpiryInterval: 3600 });
    router.subscribe("c", c.generation, [sub("t", 2)]);
    router.unbind("c", c.generation);
    for (let i = 0; i < 20; i += 1) router.publish(message("t", `m${String(i)}`, 2));
    await store.flush();
    await redis.server.restart();
    await store.close();
    const reopened = await open();
    const session = reopened.load().sessions.find((s) => s.record.clientId === "c");
    expect(session?.deliveries.map((d) => new TextDecoder().decode(d.delivery.message.payload))).toEqual(Array.from({ length: 20 }, (_, i) => `m${String(i)}`));
    await reopened.close();
  });

  it("while Redis is down a flush rejects and the store stops admitting; once it is back the kept batch lands", async () => {
    const store = await open();
    const { router } = newRouter(store);
    const c = online(router, "c", { cleanStart: true, sessionExpiryInterval: 3600 });
    router.subscribe("c", c.generation, [sub("t")]);
    router.unbind("c", c.generation);
    await store.flush();
    expect(store.admitting).toBe(true);
    await redis.server.crash();
    router.publish(message("t", "during the outage"));
    const error = await store.flush().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).kind).toBe("commit-failed");
    expect(store.admitting).toBe(false);
    await redis.server.revive();
    // The client reconnects on its own schedule; the store retries after its backoff.
    const deadline = Date.now() + 10_000;
    let landed = false;
    while (!landed && Date.now() < deadline) {
      landed = await store.flush().then(() => true, () => false);
      if (!landed) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(landed).toBe(true);
    expect(store.admitting).toBe(true);
    const conn = await redis.connect();
    expect(await conn.hlen(keys.deliveries("c"))).toBe(1);
    await store.close();
  });
});
