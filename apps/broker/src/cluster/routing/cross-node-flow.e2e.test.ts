// Flow control across nodes (router invariant 8): a flood published on one node into a subscriber
// reading slowly on another is acknowledged at the stream append, so the subscriber's node must
// not route it into a queue past its bound (the default 1,000 copies, drop-oldest): its reader
// pauses while the subscriber is congested and the stream holds the backlog. Every acknowledged
// message arrives, in order, and the node drops nothing (it dropped thousands before).
import { describe, expect, it } from "vitest";
import { deliveryViolations } from "../../e2e/delivery-oracle.test-helpers.js";
import { collect, until } from "../../e2e/harness.test-helpers.js";
import { serverFixture } from "../../e2e/server-harness.test-helpers.js";
import { clusterNodes, mqttUrl } from "../nodes.test-helpers.js";
import { hasRedis, useRedis } from "../redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const COUNT = 3000;
const IN_FLIGHT = 40; // below the broker's Receive Maximum (64): MQTT.js does not hold back itself

describe.skipIf(!hasRedis)("a flood from one node into a slow reader on another", () => {
  it("is delivered whole and in order: the reader's node pauses instead of dropping", async () => {
    const [one, two] = [await nodes.start("n1"), await nodes.start("n2")];
    const sub = await fixture.connect(mqttUrl(one), { clientId: "slow", clean: false, properties: { sessionExpiryInterval: 60 } });
    // One message at a time, each acknowledged a little late: well under the flood's rate.
    sub.handleMessage = (_packet, callback) => {
      setTimeout(callback, 1);
    };
    await sub.subscribeAsync("feed", { qos: 1 });
    const got = collect(sub);
    const pub = await fixture.connect(mqttUrl(two), { clientId: "pub" });
    const payloads = Array.from({ length: COUNT }, (_, i) => `pub:${String(i)}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < COUNT) {
          const payload = payloads[next] ?? "";
          next += 1;
          await pub.publishAsync("feed", payload, { qos: 1 });
        }
      }),
    );
    await until(() => new Set(got.map((g) => g.payload)).size >= COUNT, 45_000, "every message").catch(() => undefined);
    const record = { publisher: "pub", qos: 1, acknowledged: payloads, sends: new Map(payloads.map((p) => [p, 1])) } as const;
    expect(deliveryViolations([record], [{ subscriber: "slow", qos: 1, got }])).toEqual([]);
    expect(one.broker.router.stats.droppedTotal).toBe(0);
  });
});
