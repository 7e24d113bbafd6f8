// The liveness loop calls another node dead only after this node's own beats have landed, without
// a failure or a gap, for a whole node timeout: after Redis was paused (its commands hang, none
// fails) or this node was, every heartbeat expired at once, and the live nodes must get a timeout
// to beat again before anyone adopts their sessions (and fires their clients' wills). The test
// drives the clock and each round against a private redis-server; no timer runs.
import { describe, expect, it } from "vitest";
import { RedisStore } from "../storage/redis-store.js";
import { newRouter } from "../storage/store.test-helpers.js";
import { ClusterKeys } from "./keys.js";
import { Liveness } from "./liveness.js";
import { startLivenessLoop, type LivenessLoop } from "./liveness-loop.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("loop:");
const TIMEOUT = 1000;

// Node "a"'s loop on a manual clock, node "b" in the set with its heartbeat gone (as after a pause
// of Redis, or of "a" itself, longer than the timeout); `dead` lists the nodes "a" acted upon.
async function cluster(): Promise<{ readonly loop: LivenessLoop; readonly dead: string[]; readonly at: (ms: number) => Promise<void> }> {
  await new Liveness({ redis: await redis.connect(), keys, nodeId: "b", timeoutMs: 60_000, startedAt: 0 }).beat(0);
  await (await redis.connect()).del(keys.heartbeat("b"));
  const store = await RedisStore.open({ url: redis.server.url, prefix: keys.prefix, nodeId: "a" });
  const { router } = newRouter(store);
  const dead: string[] = [];
  let now = 0;
  const loop = await startLivenessLoop({
    url: redis.server.url,
    keys,
    nodeId: "a",
    timeoutMs: TIMEOUT,
    store,
    router,
    now: () => now,
    beatEveryMs: Infinity,
    onDead: (node) => dead.push(node),
    onAdopted: () => undefined,
    onError: (err) => {
      throw err;
    },
  });
  return {
    loop,
    dead,
    at: async (ms) => {
      now = ms;
      await loop.round();
    },
  };
}

describe.skipIf(!hasRedis)("the liveness loop", () => {
  it("calls a node dead once its own beats have landed for a whole timeout", async () => {
    const { loop, dead, at } = await cluster();
    for (const t of [250, 500, 750]) await at(t);
    expect(dead).toEqual([]);
    await at(1000);
    expect(dead).toEqual(["b"]);
    await loop.close();
  });

  it("after a gap in its own beats longer than half the timeout, waits a whole timeout again before calling anyone dead", async () => {
    const { loop, dead, at } = await cluster();
    await at(250);
    // Nothing landed for 2 s: Redis or this node was paused; every heartbeat may have expired.
    for (const t of [2250, 2500, 2750, 3000]) await at(t);
    expect(dead).toEqual([]);
    await at(3250);
    expect(dead).toEqual(["b"]);
    await loop.close();
  });
});
