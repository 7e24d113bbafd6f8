// Test-only: one private redis-server per test file, emptied before each test, and connections
// that are closed after it. Tests that need Redis are skipped, with a message, without redis-server.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";
import { compareIds } from "./routing/stream-id.js";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { redisInstalled, startRedis, type RedisProcess, type RedisProcessOptions } from "./redis-process.js";

/** Whether redis-server is installed; warns once when it is not. */
export const hasRedis = await redisInstalled();
if (!hasRedis) console.warn("Redis tests skipped: redis-server is not installed (apt-get install redis-server)");

/** The file's server and a connection factory (each connection is closed after the test). */
export interface RedisFixture {
  readonly server: RedisProcess;
  connect(): Promise<Redis>;
}

/** Starts the server for the file when Redis is installed. */
export function useRedis(options: RedisProcessOptions = {}): RedisFixture {
  let server: RedisProcess | undefined;
  const open: Redis[] = [];
  const fixture: RedisFixture = {
    get server(): RedisProcess {
      if (server === undefined) throw new Error("redis-server is not running");
      return server;
    },
    async connect() {
      const redis = new Redis(fixture.server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      open.push(redis);
      redis.on("error", () => undefined); // tests that crash the server see it in their commands
      await redis.connect();
      return redis;
    },
  };
  beforeAll(async () => {
    if (hasRedis) server = await startRedis(options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    if (server === undefined) return;
    const admin = await fixture.connect();
    await admin.flushall();
  });
  afterEach(() => {
    for (const redis of open.splice(0)) redis.disconnect();
  });
  return fixture;
}

/**
 * Resolves once every node of the cluster under `keys` has committed a routes cursor at the
 * stream's tip (it has read, and routed, everything appended so far). Polled; fails after test-kit's
 * safety net.
 */
export async function everyNodeAtTip(redis: Redis, keys: ClusterKeys): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const [cursors, last] = await Promise.all([redis.hvals(keys.cursors), redis.xrevrange(keys.routes, "+", "-", "COUNT", 1)]);
    const tip = last[0]?.[0];
    if (tip === undefined || cursors.every((c) => compareIds(c, tip) >= 0)) return;
    if (Date.now() > deadline) throw new Error(`the nodes' cursors ${cursors.join(", ")} never reached the stream's tip ${tip}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
