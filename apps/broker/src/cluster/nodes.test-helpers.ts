// Test-only: broker nodes of one cluster (one Redis, one key prefix per test), started through
// startServer on loopback with free ports, closed after each test.
import { readFileSync } from "node:fs";
import { pino } from "pino";
import { afterEach } from "vitest";
import { loadConfig } from "../config/index.js";
import { startServer, type Server } from "../server.js";
import { ClusterKeys } from "./keys.js";
import type { RedisFixture } from "./redis.test-helpers.js";

/** Starts nodes; every node started in a test is closed after it. */
export interface ClusterNodes {
  /** Starts node `nodeId` of the current test's cluster. */
  start(nodeId: string, flags?: readonly string[]): Promise<Server>;
  /** The current test's cluster keys (its own prefix). */
  readonly keys: ClusterKeys;
}

let clusters = 0;

/** `mqtt://` URL of a node's TCP listener. */
export const mqttUrl = (s: Server): string => `mqtt://127.0.0.1:${String(s.ports.mqtt)}`;

/** Registers the cleanup; call once at the top of a test file, after `useRedis`. */
export function clusterNodes(redis: RedisFixture): ClusterNodes {
  const log = pino({ level: process.env["HANDOFF_TEST_LOG"] ?? "silent" });
  const running: Server[] = [];
  let prefix = `cluster${String(clusters++)}:`;
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
    prefix = `cluster${String(clusters++)}:`;
  });
  return {
    get keys() {
      return new ClusterKeys(prefix);
    },
    start: async (nodeId, flags = []) => {
      const args = ["--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0"];
      args.push("--storage", "redis", "--redis-url", redis.server.url, "--redis-prefix", prefix, "--node-id", nodeId, ...flags);
      const loaded = loadConfig(args, {}, (p) => readFileSync(p, "utf8"));
      if (loaded.kind !== "run") throw new Error("help");
      const server = await startServer(loaded.config, log);
      running.push(server);
      return server;
    },
  };
}
