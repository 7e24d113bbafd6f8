// Node liveness with whole broker nodes on one redis-server: the cluster gauges on every node's
// /metrics, and the will of a client of a node that stopped, fired once by the survivor after
// the node's heartbeat expired and the Will Delay elapsed.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { describe, expect, it } from "vitest";
import { collect, until } from "../e2e/harness.test-helpers.js";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import type { Server } from "../server.js";
import { clusterNodes, mqttUrl } from "./nodes.test-helpers.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const fast = ["--node-timeout-ms", "300"];

async function gauge(server: Server, name: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${String(server.ports.http)}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

async function untilGauge(server: Server, name: string, value: number): Promise<void> {
  let last: number | undefined;
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while ((last = await gauge(server, name)) !== value) {
    if (Date.now() > deadline) throw new Error(`${name} stayed ${String(last)}, expected ${String(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!hasRedis)("node liveness", () => {
  it("every node reports the nodes alive and the cluster's sessions; a stopped node's will fires once, from the survivor, after its delay", async () => {
    const [one, two] = [await nodes.start("n1", fast), await nodes.start("n2", fast)];
    const watcher = await fixture.connect(mqttUrl(one), { clientId: "watcher" });
    const wills = collect(watcher);
    await watcher.subscribeAsync("will/#", { qos: 1 });
    await fixture.connect(mqttUrl(two), {
      clientId: "leaver",
      clean: false,
      properties: { sessionExpiryInterval: 60 },
      will: { topic: "will/leaver", payload: Buffer.from("gone"), qos: 1, retain: false, properties: { willDelayInterval: 1 } },
    });
    await untilGauge(one, "handoff_broker_cluster_nodes_alive", 2);
    await untilGauge(two, "handoff_broker_cluster_nodes_alive", 2);
    await untilGauge(one, "handoff_broker_cluster_sessions", 2);

    await two.close();
    await untilGauge(one, "handoff_broker_cluster_nodes_alive", 1);
    await until(() => wills.length >= 1, 10_000, "the will of the stopped node's client");
    // The survivor holds the session now (disconnected, until it expires or its client returns).
    expect(one.broker.router.session("leaver")).toBeDefined();
    const conn = await redis.connect();
    const prefix = await prefixOf(conn);
    expect(await conn.hget(`${prefix}owner:leaver`, "node")).toBe("n1");
    expect(await conn.hexists(`${prefix}wills`, "leaver")).toBe(0);
    expect(wills.map((w) => w.payload)).toEqual(["gone"]);
  });
});

// The prefix the nodes helper gave this test's cluster (the one prefix whose node set exists).
async function prefixOf(conn: Awaited<ReturnType<typeof redis.connect>>): Promise<string> {
  const [key] = await conn.keys("*nodes");
  return key?.slice(0, -"nodes".length) ?? "";
}
