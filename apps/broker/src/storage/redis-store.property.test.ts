// Model-based, as for SQLite: random router operations with the Redis store and the in-memory
// reference store side by side; after reopening, the Redis store's snapshot equals the reference's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasRedis, useRedis } from "../cluster/redis.test-helpers.js";
import { command, drive, MODEL_TEST_TIMEOUT_MS, type World } from "./model-commands.test-helpers.js";
import { RedisStore } from "./redis-store.js";
import { newRouter, normalize, referenceStore, tee } from "./store.test-helpers.js";

const redis = useRedis();

async function start(prefix: string, reference: ReturnType<typeof referenceStore>, now: number, restore: boolean): Promise<World<RedisStore>> {
  const store = await RedisStore.open({ url: redis.server.url, prefix, nodeId: "node-a" });
  const { router, clock } = newRouter(tee(store, reference), now);
  if (restore) router.restore(store.load());
  return { store, router, clock, generations: new Map() };
}

describe.skipIf(!hasRedis)("RedisStore against the reference store", () => {
  it("reloads exactly what the reference store holds after any sequence of router operations", { timeout: MODEL_TEST_TIMEOUT_MS }, async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        // Every run (and every shrink step) gets its own key prefix.
        const prefix = `m${String(runs++)}:`;
        const reference = referenceStore();
        await drive(commands, reference, (ref, now, restore) => start(prefix, ref, now, restore));
        const reopened = await start(prefix, referenceStore(), 0, false);
        const loaded = reopened.store.load();
        await reopened.store.close();
        expect(normalize(loaded)).toEqual(normalize(reference.snapshot()));
        // Nothing outlives its session: every per-session key and will belongs to a stored session.
        const conn = await redis.connect();
        const sessions = new Set(await conn.hkeys(`${prefix}sessions`));
        const orphans = (await conn.keys(`${prefix}*`))
          .map((key) => /^[^:]+:(subs|deliveries|assigned|qos2):(.*)$/.exec(key)?.[2])
          .filter((id): id is string => id !== undefined && !sessions.has(id));
        const orphanWills = (await conn.hkeys(`${prefix}wills`)).filter((id) => !sessions.has(id));
        expect({ orphans, orphanWills }).toEqual({ orphans: [], orphanWills: [] });
      }),
      // Bounded by runs, not time (see MODEL_TEST_TIMEOUT_MS).
      { numRuns: 60 },
    );
  });
});
