// `$share` groups across a cluster of three nodes on one Redis, with MQTT.js: a group with a
// member on each node gets one copy of each message cluster-wide (not one per node), spread over
// its members, whichever node the publisher is on; plain subscribers still get every message; a
// member that leaves gets no more copies and the others get them all; the copies decided for a
// node that died reach the group through the survivor that adopts its member.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import type { MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { collect, until, type Got } from "../e2e/harness.test-helpers.js";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import type { Server } from "../server.js";
import { clusterNodes, mqttUrl } from "./nodes.test-helpers.js";
import { ClusterKeys } from "./keys.js";
import { everyNodeAtTip, hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const GROUP = "$share/workers/jobs/#";

// Every node has read where the group has members: the shares hash holds `members` fields and
// every node's reader has passed the routes stream's changes (its cursor is at the tip).
async function membersKnown(members: number): Promise<void> {
  const conn = await redis.connect();
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const [key] = await conn.keys("*shares");
    if (key !== undefined && (await conn.hlen(key)) === members) {
      await everyNodeAtTip(conn, new ClusterKeys(key.slice(0, -"shares".length)));
      return;
    }
    if (Date.now() > deadline) throw new Error(`the shares hash never held ${String(members)} memberships`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function publishFrom(servers: readonly Server[], count: number, from: number): Promise<string[]> {
  const sent: string[] = [];
  await Promise.all(
    servers.map(async (server, k) => {
      const pub = await fixture.connect(mqttUrl(server), { clientId: `pub${String(k)}` });
      for (let i = from; i < from + count; i++) {
        const payload = `p${String(k)}:${String(i)}`;
        await pub.publishAsync(`jobs/${String(i % 4)}`, payload, { qos: 1 });
        sent.push(payload);
      }
    }),
  );
  return sent;
}

const payloads = (got: readonly Got[]): string[] => got.map((g) => g.payload);

describe.skipIf(!hasRedis)("$share groups across three nodes", () => {
  it("one copy per message for the whole group, spread over members on every node; plain subscribers get all", async () => {
    const servers = [await nodes.start("n1"), await nodes.start("n2"), await nodes.start("n3")];
    const workers: MqttClient[] = [];
    for (const [k, server] of servers.entries()) {
      const w = await fixture.connect(mqttUrl(server), { clientId: `w${String(k)}` });
      await w.subscribeAsync(GROUP, { qos: 1 });
      workers.push(w);
    }
    const [, two] = servers;
    if (two === undefined) throw new Error("three nodes");
    const plain = await fixture.connect(mqttUrl(two), { clientId: "plain" });
    await plain.subscribeAsync("jobs/#", { qos: 1 });
    const plainGot = collect(plain);
    await membersKnown(3);

    const sent = await publishFrom(servers, 30, 0);
    const groupGot = (): string[] => workers.flatMap((w) => payloads(collect(w)));
    await until(() => groupGot().length >= sent.length && plainGot.length >= sent.length, 10_000, "every copy").catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200)); // any extra copy would arrive meanwhile
    expect(groupGot().sort()).toEqual([...sent].sort());
    expect(payloads(plainGot).sort()).toEqual([...sent].sort());
    // Spread: every member, on every node, took some of them.
    for (const w of workers) expect(collect(w).length).toBeGreaterThan(0);

    // A member leaves: the rest get every later message, once.
    const [leaver, ...rest] = workers;
    await leaver?.unsubscribeAsync(GROUP);
    await membersKnown(2);
    const before = leaver === undefined ? 0 : collect(leaver).length;
    const later = await publishFrom(servers, 30, 100);
    const restGot = (): string[] => rest.flatMap((w) => payloads(collect(w)).filter((p) => later.includes(p)));
    await until(() => restGot().length >= later.length, 10_000, "every later copy").catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(restGot().sort()).toEqual([...later].sort());
    expect(leaver === undefined ? 0 : collect(leaver).length).toBe(before);
  });

  it("the copies decided for a node that died reach the group through the survivor that adopts its member", async () => {
    const fast = ["--node-timeout-ms", "300"];
    const [one, two] = [await nodes.start("n1", fast), await nodes.start("n2", fast)];
    const resume = { clean: false, properties: { sessionExpiryInterval: 60 } };
    const w1 = await fixture.connect(mqttUrl(one), { clientId: "w1" });
    await w1.subscribeAsync(GROUP, { qos: 1 });
    const w2 = await fixture.connect(mqttUrl(two), { clientId: "w2", ...resume });
    await w2.subscribeAsync(GROUP, { qos: 1 });
    await membersKnown(2);
    await w2.endAsync();
    await two.close();
    // n1 still decides every other copy for n2 until it finds n2 dead and adopts w2's session:
    // publish until then (however long a loaded machine takes), then some more.
    const sent: string[] = [];
    while (one.broker.router.session("w2") === undefined) sent.push(...(await publishFrom([one], 2, sent.length)));
    expect(sent.length).toBeGreaterThanOrEqual(2); // some copies were decided for the dead node
    sent.push(...(await publishFrom([one], 20, 1000)));
    const back = await fixture.connect(mqttUrl(one), { clientId: "w2", ...resume });
    const groupGot = (): string[] => [...payloads(collect(w1)), ...payloads(collect(back))];
    await until(() => groupGot().length >= sent.length, 10_000, "every copy").catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(groupGot().sort()).toEqual([...sent].sort());
  });
});
