// Takeover churn across a cluster of three nodes on one Redis (see
// e2e/takeover-churn.test-helpers.ts): 20 client ids, each connection of an id on the next node
// (every takeover crosses nodes: the old node's connection is closed with 0x8E), clean and resuming
// by a fixed schedule, while three QoS 1 publishers, one per node, send 1,000 msg/s together.
// No session-present mismatch, no stray, nothing acknowledged lost, repeats only as DUP resends,
// first copies in order per publisher.
import { describe, it } from "vitest";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import { takeoverChurn } from "../e2e/takeover-churn.test-helpers.js";
import { clusterNodes, mqttUrl } from "./nodes.test-helpers.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();

describe.skipIf(!hasRedis)("takeover churn across three nodes while QoS 1 publishers send", () => {
  for (const version of [5, 4] as const) {
    it(`MQTT ${version === 5 ? "5" : "3.1.1"}: session present exactly when resumable, no strays, nothing lost, repeats only as DUP`, async () => {
      const urls = (await Promise.all([nodes.start("n1"), nodes.start("n2"), nodes.start("n3")])).map(mqttUrl);
      const urlFor = (id: number, step: number): string => urls[(id + step) % urls.length] ?? "";
      await takeoverChurn({ version, label: "3 nodes on Redis", track: fixture.track, publishers: urls, urlFor, rate: 1000, churnMs: 4000, routedAtAck: false });
    });
  }
});
