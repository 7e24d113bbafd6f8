// A persistent session hopping between three nodes while a publisher on another node keeps
// publishing QoS 1: every message reaches it, first copies in publish order, and a repeat only
// as a DUP=1 resend of one in flight at a hop — the route base and replay of routing/handoff.ts.
// A copy in flight when the client leaves may never be read by it: its first copy seen is then
// the DUP=1 resend, as the spec allows, so the oracle (delivery-oracle) counts copies, not flags.
import { describe, expect, it } from "vitest";
import { deliveryViolations } from "../../e2e/delivery-oracle.test-helpers.js";
import { collect, until, type Got } from "../../e2e/harness.test-helpers.js";
import { serverFixture } from "../../e2e/server-harness.test-helpers.js";
import { clusterNodes, mqttUrl } from "../nodes.test-helpers.js";
import { hasRedis, useRedis } from "../redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const resume = { clean: false, properties: { sessionExpiryInterval: 3600 } };
const COUNT = 200;

describe.skipIf(!hasRedis)("a session moving between nodes while publishes flow", () => {
  it("gets each message once, in order, across five hops", async () => {
    const [one, two, three] = await Promise.all([nodes.start("n1"), nodes.start("n2"), nodes.start("n3")]);
    const first = await fixture.connect(mqttUrl(two), { clientId: "mover", ...resume });
    await first.subscribeAsync("feed", { qos: 1 });
    const lists: Got[][] = [collect(first)];
    const pub = await fixture.connect(mqttUrl(one), { clientId: "pub" });
    let published = 0;
    const publishing = (async () => {
      for (; published < COUNT; published += 1) await pub.publishAsync("feed", `pub:${String(published)}`, { qos: 1 });
    })();
    let current = first;
    for (const next of [three, one, two, three, one]) {
      // Hop once the publisher has gone on a little: publishes flow across every move.
      const at = published;
      await until(() => published >= Math.min(COUNT, at + 15), 20_000, "more publishes");
      await current.endAsync();
      current = await fixture.connect(mqttUrl(next), { clientId: "mover", ...resume });
      lists.push(collect(current));
    }
    await publishing;
    const all = (): Got[] => lists.flat();
    await until(() => new Set(all().map((g) => g.payload)).size >= COUNT, 20_000, "every message");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const payloads = Array.from({ length: COUNT }, (_, i) => `pub:${String(i)}`);
    const record = { publisher: "pub", qos: 1, acknowledged: payloads, sends: new Map(payloads.map((p) => [p, 1])) } as const;
    expect(deliveryViolations([record], [{ subscriber: "mover", qos: 1, got: all() }])).toEqual([]);
  });
});
