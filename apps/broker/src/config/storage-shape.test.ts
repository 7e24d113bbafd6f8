// The storage settings' shape: `storage: { kind, url, prefix, waitReplicas, waitTimeoutMs }` in a
// config file, from flags and variables, and in createBroker's object (the same schema); the
// former `storage: <kind>` plus `redis:` section still works, with one deprecation warning.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, type BrokerConfig } from "./index.js";
import { configFromObject } from "./from-object.js";
import { LEGACY_STORAGE_WARNING } from "./resolve.js";

function load(argv: string[], file?: string, env: Record<string, string> = {}): BrokerConfig {
  const result = loadConfig(file === undefined ? argv : ["--config", "broker.yaml", ...argv], env, (path) => {
    if (path.endsWith("broker.yaml") && file !== undefined) return file;
    throw new Error(`ENOENT: ${path}`);
  });
  if (result.kind !== "run") throw new Error("expected settings");
  return result.config;
}

const section = "storage: { kind: redis, url: redis://file:6379, prefix: 'f:', waitReplicas: 1, waitTimeoutMs: 250 }\ncluster: { nodeId: n1, nodeTimeoutMs: 2000 }\n";

describe("storage settings", () => {
  it("reads storage: { kind, url, prefix, ... } and cluster: { nodeId } from the file, without a warning", () => {
    const config = load([], section);
    expect([config.storage, config.redis, config.cluster, config.warnings]).toEqual([
      "redis",
      { url: "redis://file:6379", prefix: "f:", waitReplicas: 1, waitTimeoutMs: 250 },
      { nodeId: "n1", nodeTimeoutMs: 2000, maxStreamBacklog: 100_000 },
      [],
    ]);
  });

  it("lets flags and variables override the section's keys", () => {
    const config = load(["--redis-prefix", "flag:", "--node-id", "n-flag"], section, { HANDOFF_BROKER_REDIS_URL: "redis://env:6379" });
    expect([config.storage, config.redis.url, config.redis.prefix, config.cluster.nodeId]).toEqual(["redis", "redis://env:6379", "flag:", "n-flag"]);
    expect(load(["--storage", "memory"], section).storage).toBe("memory");
  });

  it("still reads the former storage: <kind> and redis: section, saying so once", () => {
    const legacy = "storage: redis\nredis: { url: redis://old:6379, prefix: 'o:' }\n";
    const config = load([], legacy);
    expect([config.storage, config.redis.url, config.redis.prefix, config.warnings]).toEqual(["redis", "redis://old:6379", "o:", [LEGACY_STORAGE_WARNING]]);
    // A flag for a storage key keeps the file's former kind.
    expect([load(["--redis-prefix", "p:"], legacy).storage, load(["--redis-prefix", "p:"], legacy).redis.url]).toEqual(["redis", "redis://old:6379"]);
    expect(load([], "storage: sqlite\n").warnings).toEqual([LEGACY_STORAGE_WARNING]);
    expect(load([]).warnings).toEqual([]);
  });

  it("validates createBroker's object with the same schema, and the same rules", () => {
    const config = configFromObject({ storage: { kind: "redis", url: "redis://obj:6379" }, cluster: { nodeId: "embedded" } });
    expect([config.storage, config.redis.url, config.redis.prefix, config.cluster.nodeId, config.warnings]).toEqual(["redis", "redis://obj:6379", "handoff:", "embedded", []]);
    expect(configFromObject({ storage: "memory" }).warnings).toEqual([LEGACY_STORAGE_WARNING]);
    expect(() => configFromObject({ storage: { kind: "redis" } })).toThrow(/"storage\.url"/);
    expect(() => configFromObject({ storage: { kind: "redis", url: "redis://x", prefx: "p" } })).toThrow(ConfigError);
    expect(() => load([], "storage: { kind: redis }\n")).toThrow(/"storage\.url"/);
  });
});
