// `storage: redis` from the config file, flags and environment, and the store it opens.
import { describe, expect, it } from "vitest";
import { hasRedis, useRedis } from "../cluster/redis.test-helpers.js";
import { ConfigError, loadConfig, type BrokerConfig } from "../config/index.js";
import { openRedisStorage } from "./redis-config.js";

function load(argv: string[], env: Record<string, string> = {}, file?: string): BrokerConfig {
  const result = loadConfig(file === undefined ? argv : ["--config", "broker.yaml", ...argv], env, (path) => {
    if (path.endsWith("broker.yaml") && file !== undefined) return file;
    throw new Error(`ENOENT: ${path}`);
  });
  if (result.kind !== "run") throw new Error("expected settings");
  return result.config;
}

describe("storage: redis in the config", () => {
  it("defaults: no url, prefix handoff:, no WAIT, node id unset (the host name)", () => {
    const config = load([]);
    expect([config.redis, config.cluster]).toEqual([{ url: undefined, prefix: "handoff:", waitReplicas: 0, waitTimeoutMs: 1000 }, { nodeId: undefined, nodeTimeoutMs: 5000, maxStreamBacklog: 100_000 }]);
  });

  it("reads the file, then the environment, then flags", () => {
    const file = "storage: redis\nredis: { url: redis://file:6379, prefix: 'f:', waitReplicas: 1, waitTimeoutMs: 250 }\ncluster: { nodeId: n-file }\n";
    expect(load([], {}, file).redis).toEqual({ url: "redis://file:6379", prefix: "f:", waitReplicas: 1, waitTimeoutMs: 250 });
    const env = { HANDOFF_BROKER_REDIS_URL: "redis://env:6379", HANDOFF_BROKER_NODE_ID: "n-env", HANDOFF_BROKER_REDIS_PREFIX: "e:" };
    const fromEnv = load([], env, file);
    expect([fromEnv.storage, fromEnv.redis.url, fromEnv.redis.prefix, fromEnv.cluster.nodeId]).toEqual(["redis", "redis://env:6379", "e:", "n-env"]);
    const fromFlags = load(["--storage", "redis", "--redis-url", "redis://flag:6379", "--node-id", "n-flag"], env, file);
    expect([fromFlags.redis.url, fromFlags.cluster.nodeId]).toEqual(["redis://flag:6379", "n-flag"]);
  });

  it("refuses storage redis without a url, naming the setting", () => {
    expect(() => load(["--storage", "redis"])).toThrow(ConfigError);
    expect(() => load(["--storage", "redis"])).toThrow(/"storage\.url"/);
  });
});

const redis = useRedis();

describe.skipIf(!hasRedis)("the configured Redis store", () => {
  it("opens on the configured url and prefix under the configured node id", async () => {
    const config = load(["--storage", "redis", "--redis-url", redis.server.url, "--redis-prefix", "cfg:", "--node-id", "node-x"]);
    const storage = await openRedisStorage(config, () => undefined);
    await storage.stopListening();
    const { store } = storage;
    store.sessionSaved({ clientId: "c", expiryInterval: 60, generation: 7, disconnectedAt: undefined });
    await store.flush();
    await store.close();
    const conn = await redis.connect();
    expect(await conn.hgetall("cfg:owner:c")).toEqual({ token: store.tokenOf("c"), node: "node-x" });
  });
});
