// Any node serves any client id: a session follows its client from node to node through Redis
// (subscriptions, queued QoS 1 messages in order, a clean start that discards it), over real
// sockets with MQTT.js and two broker nodes on one redis-server.
import { describe, expect, it } from "vitest";
import { collect, until } from "../e2e/harness.test-helpers.js";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import { clusterNodes, mqttUrl } from "./nodes.test-helpers.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const nodes = clusterNodes(redis);
const fixture = serverFixture();
const resume = { clean: false, properties: { sessionExpiryInterval: 3600 } };

describe.skipIf(!hasRedis)("session handoff between broker nodes", () => {
  it("a session queued on node 1 resumes on node 2 with its messages in order, and back on node 1 with what node 2 queued", async () => {
    const [one, two] = [await nodes.start("n1"), await nodes.start("n2")];
    const sub = await fixture.connect(mqttUrl(one), { clientId: "sub", ...resume });
    await sub.subscribeAsync("t/#", { qos: 1 });
    await sub.endAsync();
    const pub1 = await fixture.connect(mqttUrl(one), { clientId: "pub1" });
    for (let i = 0; i < 3; i += 1) await pub1.publishAsync("t/a", `m${String(i)}`, { qos: 1 });

    const onTwo = await fixture.connect(mqttUrl(two), { clientId: "sub", ...resume });
    const got = collect(onTwo);
    await until(() => got.length >= 3, 5000, "the messages queued on node 1");
    expect(got.map((g) => g.payload)).toEqual(["m0", "m1", "m2"]);
    // Node 1 forgot its copy: the session is node 2's now.
    await until(() => one.broker.router.session("sub") === undefined, 5000, "node 1 to give the session up");
    expect(two.broker.router.subscriptionViews("sub")?.map((s) => s.filter)).toEqual(["t/#"]);
    await onTwo.endAsync();

    const pub2 = await fixture.connect(mqttUrl(two), { clientId: "pub2" });
    await pub2.publishAsync("t/b", "from node 2", { qos: 1 });
    const back = await fixture.connect(mqttUrl(one), { clientId: "sub", ...resume });
    const again = collect(back);
    await until(() => again.length >= 1, 5000, "the message queued on node 2");
    expect(again.map((g) => g.payload)).toEqual(["from node 2"]);
    await until(() => two.broker.router.session("sub") === undefined, 5000, "node 2 to give the session up");
  });

  it("a clean start on node 2 discards the session node 1 held: nothing of it reaches the clean session (seed 000 across nodes)", async () => {
    const [one, two] = [await nodes.start("n1"), await nodes.start("n2")];
    const sub = await fixture.connect(mqttUrl(one), { clientId: "sub", ...resume });
    await sub.subscribeAsync("old/#", { qos: 1 });
    await sub.endAsync();
    const pub = await fixture.connect(mqttUrl(one), { clientId: "pub" });
    await pub.publishAsync("old/a", "queued for the old session", { qos: 1 });

    const clean = await fixture.connect(mqttUrl(two), { clientId: "sub", clean: true, properties: { sessionExpiryInterval: 3600 } });
    const got = collect(clean);
    await clean.subscribeAsync("new/#", { qos: 1 });
    await pub.publishAsync("old/b", "routed under the old subscription", { qos: 1 });
    await clean.endAsync();
    // Back on node 1: the session is the clean one node 2 made, not node 1's old copy.
    const back = await fixture.connect(mqttUrl(one), { clientId: "sub", ...resume });
    const later = collect(back);
    await pub.publishAsync("new/x", "under the new subscription", { qos: 1 });
    await until(() => later.length >= 1, 5000, "the message under the new subscription");
    expect(one.broker.router.subscriptionViews("sub")?.map((s) => s.filter)).toEqual(["new/#"]);
    expect([...got, ...later].map((g) => g.payload)).toEqual(["under the new subscription"]);
  });

  it("a session connected on node 1 when its client connects to node 2: 0x8E there, resumed here, its will without delay published once", async () => {
    const [one, two] = [await nodes.start("n1"), await nodes.start("n2")];
    const watcher = await fixture.connect(mqttUrl(two), { clientId: "watcher" });
    const wills = collect(watcher);
    await watcher.subscribeAsync("will/#", { qos: 1 });
    const first = await fixture.connect(mqttUrl(one), { clientId: "hopper", ...resume, will: { topic: "will/hopper", payload: Buffer.from("gone"), qos: 1, retain: false } });
    await first.subscribeAsync("t", { qos: 1 });
    const closed = new Promise<number | undefined>((resolve) => {
      first.once("disconnect", (packet) => {
        resolve(packet.reasonCode);
      });
    });
    const second = await fixture.connect(mqttUrl(two), { clientId: "hopper", ...resume });
    expect(await closed).toBe(0x8e);
    await until(() => wills.length >= 1, 5000, "the will");
    expect(two.broker.router.subscriptionViews("hopper")?.map((s) => s.filter)).toEqual(["t"]);
    expect(second.connected).toBe(true);
    // Node 1 forgot the session before closing its connection: no will of it is left there to fire.
    expect(one.broker.router.session("hopper")).toBeUndefined();
    expect(wills.map((w) => w.payload)).toEqual(["gone"]);
  });
});
