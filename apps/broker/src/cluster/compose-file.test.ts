// deploy/cluster/docker-compose.yml, checked without a docker daemon: one Redis with AOF and
// fsync always, three broker nodes whose commands are flags this broker accepts (each a Redis
// node with its own id), and the balancer's backends naming exactly those nodes.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../config/index.js";

const dir = new URL("../../../../deploy/cluster/", import.meta.url);
const compose = parse(readFileSync(new URL("docker-compose.yml", dir), "utf8"), { merge: true }) as {
  services: Record<string, { command?: string[]; environment?: Record<string, string>; ports?: string[]; build?: { target?: string }; image?: string; volumes?: string[] }>;
};
const haproxy = readFileSync(new URL("haproxy.cfg", dir), "utf8");
function dockerCompose(): boolean {
  try {
    execFileSync("docker", ["compose", "version"], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
const hasDocker = dockerCompose();
if (!hasDocker) console.warn("docker compose config check skipped: no docker compose here");
const brokers = Object.entries(compose.services).filter(([name]) => name.startsWith("broker-"));

describe("the cluster compose file", () => {
  it("runs one Redis with AOF and appendfsync always", () => {
    const command = compose.services["redis"]?.command ?? [];
    expect(command[0]).toBe("redis-server");
    expect(command.join(" ")).toContain("--appendonly yes --appendfsync always");
  });

  it("runs three broker nodes of the broker image whose commands are this broker's flags: Redis storage, distinct node ids", () => {
    expect(brokers.map(([name]) => name)).toEqual(["broker-1", "broker-2", "broker-3"]);
    const ids = brokers.map(([name, service]) => {
      expect([service.image, service.build?.target]).toEqual(["handoff-broker", "broker"]);
      const loaded = loadConfig(service.command ?? [], service.environment ?? {}, () => {
        throw new Error(`${name} reads no config file`);
      });
      if (loaded.kind !== "run") throw new Error(`${name}: help`);
      expect([loaded.config.storage, loaded.config.redis.url, loaded.config.listeners.tcp?.host]).toEqual(["redis", "redis://redis:6379", "0.0.0.0"]);
      return loaded.config.cluster.nodeId;
    });
    expect(ids).toEqual(["broker-1", "broker-2", "broker-3"]);
    expect(brokers.map(([, s]) => s.ports)).toEqual([["1884:1883"], ["1885:1883"], ["1886:1883"]]);
  });

  it("balances port 1883 over exactly those nodes", () => {
    expect(compose.services["lb"]?.ports).toEqual(["1883:1883"]);
    expect(compose.services["lb"]?.volumes).toEqual(["./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"]);
    expect(haproxy).toMatch(/^\s*mode tcp$/m);
    const servers = [...haproxy.matchAll(/^\s*server (\S+) (\S+)/gm)].map((m) => [m[1], m[2]]);
    expect(servers).toEqual(brokers.map(([name]) => [name, `${name}:1883`]));
  });
});

describe.skipIf(!hasDocker)("the cluster compose file, as docker compose reads it", () => {
  it("is a valid compose file", () => {
    execFileSync("docker", ["compose", "-f", fileURLToPath(new URL("docker-compose.yml", dir)), "config", "--quiet"], { stdio: "pipe", timeout: 30_000 });
  });
});
