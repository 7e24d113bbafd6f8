// Cross-node routing over real sockets: three broker nodes on one redis-server, MQTT.js clients
// spread over them. A publish accepted on one node reaches the subscribers of every node once, in
// publish order per publisher, at min(publish, subscription) QoS; no-local and
// retain-as-published hold across nodes; retained messages are shared.
import type { MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { collect, until, type Got } from "../../e2e/harness.test-helpers.js";
import { serverFixture } from "../../e2e/server-harness.test-helpers.js";
import { clusterNodes, mqttUrl } from "../nodes.test-helpers.js";
import { hasRedis, useRedis } from "../redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();

const three = async () => Promise.all([nodes.start("n1"), nodes.start("n2"), nodes.start("n3")]);

async function publishAll(client: MqttClient, topic: string, prefix: string, count: number, qos: 0 | 1 | 2): Promise<void> {
  // In flight together (up to the client's window): order must hold without waiting for each ack.
  await Promise.all(Array.from({ length: count }, (_, i) => client.publishAsync(topic, `${prefix}${String(i)}`, { qos })));
}

const payloads = (got: readonly Got[], topic?: string): string[] => got.filter((g) => topic === undefined || g.topic === topic).map((g) => g.payload);
const expected = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${String(i)}`);

describe.skipIf(!hasRedis)("routing between three broker nodes", () => {
  it("fans a publisher on node 1 out to subscribers on nodes 2 and 3 once, in order, at min(publish, subscription) QoS", async () => {
    const [one, two, three_] = await three();
    const onTwo = await fixture.connect(mqttUrl(two), { clientId: "s2" });
    const onThree = await fixture.connect(mqttUrl(three_), { clientId: "s3" });
    const got2 = collect(onTwo);
    const got3 = collect(onThree);
    await onTwo.subscribeAsync("q/#", { qos: 2 });
    await onThree.subscribeAsync("q/#", { qos: 1 });
    const pub = await fixture.connect(mqttUrl(one), { clientId: "pub" });
    for (const qos of [0, 1, 2] as const) await publishAll(pub, `q/${String(qos)}`, `m${String(qos)}-`, 30, qos);
    await until(() => got2.length >= 90 && got3.length >= 90, 10_000, "every copy on nodes 2 and 3");
    for (const qos of [0, 1, 2] as const) {
      expect(payloads(got2, `q/${String(qos)}`)).toEqual(expected(`m${String(qos)}-`, 30));
      expect(payloads(got3, `q/${String(qos)}`)).toEqual(expected(`m${String(qos)}-`, 30));
      expect(new Set(got2.filter((g) => g.topic === `q/${String(qos)}`).map((g) => g.qos))).toEqual(new Set([qos]));
      expect(new Set(got3.filter((g) => g.topic === `q/${String(qos)}`).map((g) => g.qos))).toEqual(new Set([Math.min(qos, 1)]));
    }
    await new Promise((resolve) => setTimeout(resolve, 200)); // nothing more arrives: once each
    expect([got2.length, got3.length]).toEqual([90, 90]);
    expect(one.broker.router.session("s2")).toBeUndefined();
  });

  it("fans publishers on all three nodes in to one subscriber, each publisher's messages in its order", async () => {
    const servers = await three();
    const [one] = servers;
    const sub = await fixture.connect(mqttUrl(one), { clientId: "sub" });
    const got = collect(sub);
    await sub.subscribeAsync("in/#", { qos: 2 });
    const publishers = await Promise.all(servers.map((s, i) => fixture.connect(mqttUrl(s), { clientId: `p${String(i)}` })));
    await Promise.all(publishers.map((p, i) => publishAll(p, `in/${String(i)}`, `p${String(i)}-`, 40, i === 2 ? 2 : 1)));
    await until(() => got.length >= 120, 10_000, "every publisher's messages");
    for (let i = 0; i < 3; i += 1) expect(payloads(got, `in/${String(i)}`)).toEqual(expected(`p${String(i)}-`, 40));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(got.length).toBe(120);
  });

  it("keeps no-local for the publisher wherever its session moves, and delivers to the others", async () => {
    const [one, two] = await three();
    const resume = { clean: false, properties: { sessionExpiryInterval: 3600 } };
    const self = await fixture.connect(mqttUrl(one), { clientId: "self", ...resume });
    const selfGot = collect(self);
    await self.subscribeAsync("chat", { qos: 1, nl: true });
    const other = await fixture.connect(mqttUrl(two), { clientId: "other" });
    const otherGot = collect(other);
    await other.subscribeAsync("chat", { qos: 1 });
    await self.publishAsync("chat", "from self on 1", { qos: 1 });
    await other.publishAsync("chat", "from other on 2", { qos: 1 });
    await self.endAsync();
    const moved = await fixture.connect(mqttUrl(two), { clientId: "self", ...resume });
    const movedGot = collect(moved);
    await moved.publishAsync("chat", "from self on 2", { qos: 1 });
    await other.publishAsync("chat", "again from other", { qos: 1 });
    await until(() => otherGot.length >= 4 && movedGot.length >= 1, 5000, "the copies");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(payloads(otherGot)).toEqual(["from self on 1", "from other on 2", "from self on 2", "again from other"]);
    // A copy in flight when the session left node 1 comes again with DUP=1 (the spec's duplicate);
    // one not read before the client left arrives only as that resend.
    const all = [...selfGot, ...movedGot];
    expect([...new Set(payloads(all))]).toEqual(["from other on 2", "again from other"]);
    const seen = new Set<string>();
    for (const g of all) {
      if (seen.has(g.payload)) expect(g.dup, `${g.payload} again without DUP`).toBe(true);
      seen.add(g.payload);
    }
  });

  it("shares retained messages: a subscriber on another node gets the last one, retain-as-published per subscription", async () => {
    const [one, two, three_] = await three();
    const pub = await fixture.connect(mqttUrl(one), { clientId: "pub" });
    await pub.publishAsync("state/a", "old", { qos: 1, retain: true });
    await pub.publishAsync("state/a", "new", { qos: 1, retain: true });
    const late = await fixture.connect(mqttUrl(two), { clientId: "late" });
    const lateGot = collect(late);
    await until(() => two.broker.router.retainedCount >= 1 && two.broker.router.retainedPage("state/#", { limit: 10 }).messages.some((m) => new TextDecoder().decode(m.payload) === "new"), 5000, "node 2 to hold the retained message");
    await late.subscribeAsync("state/#", { qos: 1 });
    const kept = await fixture.connect(mqttUrl(three_), { clientId: "kept" });
    const keptGot = collect(kept);
    await kept.subscribeAsync("state/#", { qos: 1, rap: true });
    await until(() => lateGot.length >= 1 && keptGot.length >= 1, 5000, "the retained copies");
    await pub.publishAsync("state/a", "live", { qos: 1, retain: true });
    await until(() => lateGot.length >= 2 && keptGot.length >= 2, 5000, "the live copies");
    expect(lateGot.map((g) => [g.payload, g.retain])).toEqual([["new", true], ["live", false]]);
    expect(keptGot.map((g) => [g.payload, g.retain])).toEqual([["new", true], ["live", true]]);
  });

  it("publishes a will to the subscribers of every node", async () => {
    const [one, two, three_] = await three();
    const watchers = await Promise.all([two, three_].map((s, i) => fixture.connect(mqttUrl(s), { clientId: `w${String(i)}` })));
    const gots = watchers.map((w) => collect(w));
    for (const w of watchers) await w.subscribeAsync("will/#", { qos: 1 });
    const dying = await fixture.connect(mqttUrl(one), { clientId: "dying", will: { topic: "will/dying", payload: Buffer.from("gone"), qos: 1, retain: false } });
    dying.stream.destroy(); // no DISCONNECT: the will is published
    await until(() => gots.every((g) => g.length >= 1), 5000, "the will on nodes 2 and 3");
    expect(gots.map((g) => payloads(g))).toEqual([["gone"], ["gone"]]);
  });
});
