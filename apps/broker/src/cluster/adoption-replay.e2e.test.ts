// A dead node's offline session, adopted by a survivor, gets what was published while nobody read
// the routes stream for it: the messages accepted between the dead node's last read and the
// adoption are replayed into it from the route base its adoption's claim recorded (without the
// replay they were lost: the dead node never routed them, the survivor did not hold the session).
import { describe, expect, it } from "vitest";
import { deliveryViolations } from "../e2e/delivery-oracle.test-helpers.js";
import { collect, until } from "../e2e/harness.test-helpers.js";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import { clusterNodes, mqttUrl } from "./nodes.test-helpers.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const fast = ["--node-timeout-ms", "300"];
const resume = { clean: false, properties: { sessionExpiryInterval: 60 } };

describe.skipIf(!hasRedis)("a dead node's offline session adopted by a survivor", () => {
  it("gets every message accepted while its node was dead, once, in order", async () => {
    // n2's heartbeat outlives the test unless the test deletes it: the test says when n2 is dead.
    const [one, two] = [await nodes.start("n1", fast), await nodes.start("n2", ["--node-timeout-ms", "600000"])];
    const first = await fixture.connect(mqttUrl(two), { clientId: "sleeper", ...resume });
    await first.subscribeAsync("feed", { qos: 1 });
    await first.endAsync();
    const pub = await fixture.connect(mqttUrl(one), { clientId: "pub" });
    await two.close();
    const payloads: string[] = [];
    const publish = async (): Promise<void> => {
      const payload = `pub:${String(payloads.length)}`;
      await pub.publishAsync("feed", payload, { qos: 1 });
      payloads.push(payload);
    };
    // Before the survivor can find n2 dead: routed by nobody into the session.
    for (let i = 0; i < 30; i++) await publish();
    expect(one.broker.router.session("sleeper")).toBeUndefined();
    const query = await redis.connect();
    await query.del(nodes.keys.heartbeat("n2"));
    await until(() => one.broker.router.session("sleeper") !== undefined, 10_000, "the adoption");
    for (let i = 0; i < 10; i++) await publish();

    const again = await fixture.connect(mqttUrl(one), { clientId: "sleeper", ...resume });
    const got = collect(again);
    await until(() => new Set(got.map((g) => g.payload)).size >= payloads.length, 10_000, "every message").catch(() => undefined);
    const record = { publisher: "pub", qos: 1, acknowledged: payloads, sends: new Map(payloads.map((p) => [p, 1])) } as const;
    expect(deliveryViolations([record], [{ subscriber: "sleeper", qos: 1, got }])).toEqual([]);
    expect(got).toHaveLength(payloads.length);
  });
});
