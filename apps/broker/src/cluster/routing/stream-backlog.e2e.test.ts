// The routes stream stays bounded when a node cannot keep up (cluster.maxStreamBacklog): a
// publisher on one node floods a subscriber on another that stops reading, whose node's reader
// pauses (cross-node flow control), so the slowest node's backlog grows; past the bound the
// publisher's node holds it (no more PUBACKs) as for a congested local subscriber. Once the
// subscriber reads again everything flows: every acknowledged message arrives, in order.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deliveryViolations } from "../../e2e/delivery-oracle.test-helpers.js";
import { collect, until } from "../../e2e/harness.test-helpers.js";
import { serverFixture } from "../../e2e/server-harness.test-helpers.js";
import type { Server } from "../../server.js";
import { clusterNodes, mqttUrl } from "../nodes.test-helpers.js";
import { hasRedis, useRedis } from "../redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const COUNT = 30_000;
const IN_FLIGHT = 40; // below the broker's Receive Maximum (64): MQTT.js does not hold back itself
const MAX_BACKLOG = 500;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// A config file: the small backlog bound, and a stall budget longer than the test, so the
// subscriber that stops reading is not cut off.
function configFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "handoff-backlog-"));
  dirs.push(dir);
  const file = join(dir, "broker.yaml");
  writeFileSync(file, `cluster: { maxStreamBacklog: ${String(MAX_BACKLOG)} }\nlimits: { stallSeconds: 120 }\n`);
  return file;
}

async function backlogOf(server: Server): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${String(server.ports.http)}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("handoff_broker_cluster_stream_backlog_entries "));
  return Number(line?.split(" ")[1] ?? "0");
}

describe.skipIf(!hasRedis)("the routes stream's backlog bound", () => {
  it("holds publishers while the slowest node is past it, and lets them go once it catches up", async () => {
    const flags = ["--config", configFile()];
    const [one, two] = [await nodes.start("n1", flags), await nodes.start("n2", flags)];
    const sub = await fixture.connect(mqttUrl(one), { clientId: "stuck", clean: false, properties: { sessionExpiryInterval: 60 } });
    // It reads nothing while `stuck` (MQTT.js takes the next message only after the callback).
    const waiting: (() => void)[] = [];
    let stuck = true;
    sub.handleMessage = (_packet, callback) => {
      if (stuck) waiting.push(() => { callback(); });
      else callback();
    };
    await sub.subscribeAsync("feed", { qos: 1 });
    const got = collect(sub);
    const pub = await fixture.connect(mqttUrl(two), { clientId: "pub" });
    const payloads = Array.from({ length: COUNT }, (_, i) => `pub:${String(i)}`);
    let next = 0;
    let acked = 0;
    const publishing = Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < COUNT) {
          const payload = payloads[next] ?? "";
          next += 1;
          await pub.publishAsync("feed", payload, { qos: 1 });
          acked += 1;
        }
      }),
    );

    // Past the bound, n2 holds its publisher: no acknowledgement for a while.
    const deadline = Date.now() + 20_000;
    while ((await backlogOf(two)) <= MAX_BACKLOG && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = acked;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    console.log(`stream backlog: publisher held at ${String(before)} acknowledged of ${String(COUNT)}, backlog ${String(await backlogOf(two))}`);
    expect(acked - before).toBeLessThanOrEqual(IN_FLIGHT);
    expect(acked).toBeLessThan(COUNT);

    // The subscriber reads again: the backlog drains, the publisher goes on, nothing is lost.
    stuck = false;
    for (const release of waiting.splice(0)) release();
    await publishing;
    await until(() => new Set(got.map((g) => g.payload)).size >= COUNT, 30_000, "every message").catch(() => undefined);
    const record = { publisher: "pub", qos: 1, acknowledged: payloads, sends: new Map(payloads.map((p) => [p, 1])) } as const;
    expect(deliveryViolations([record], [{ subscriber: "stuck", qos: 1, got }])).toEqual([]);
  });
});
