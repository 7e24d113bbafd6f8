// End-to-end over real loopback sockets with MQTT.js (npm `mqtt`), MQTT 5 and 3.1.1.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, startBroker, until, type Harness } from "./harness.test-helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await startBroker();
});
afterEach(async () => {
  await h.close();
});

describe("MQTT.js against the broker", () => {
  for (const protocolVersion of [5, 4] as const) {
    it(`publishes and subscribes at QoS 0, 1 and 2 (protocol ${String(protocolVersion)})`, async () => {
      const sub = await h.client({ protocolVersion, clientId: "sub" });
      const got = collect(sub);
      await sub.subscribeAsync("t/#", { qos: 2 });
      const pub = await h.client({ protocolVersion, clientId: "pub" });
      await pub.publishAsync("t/0", "zero", { qos: 0 });
      await pub.publishAsync("t/1", "one", { qos: 1 });
      await pub.publishAsync("t/2", "two", { qos: 2 });
      await until(() => got.length === 3, 5000, "three messages");
      expect(got.map((m) => [m.topic, m.payload, m.qos])).toEqual([
        ["t/0", "zero", 0],
        ["t/1", "one", 1],
        ["t/2", "two", 2],
      ]);
    });
  }

  it("delivers a retained message to a later subscriber with RETAIN set", async () => {
    const pub = await h.client({ clientId: "pub" });
    await pub.publishAsync("status", "up", { qos: 1, retain: true });
    const sub = await h.client({ clientId: "late" });
    const got = collect(sub);
    await sub.subscribeAsync("status", { qos: 1 });
    await until(() => got.length === 1);
    expect(got[0]).toMatchObject({ payload: "up", retain: true });
  });

  it("publishes a client's will when its connection drops", async () => {
    const watcher = await h.client({ clientId: "watcher" });
    const got = collect(watcher);
    await watcher.subscribeAsync("wills/#", { qos: 1 });
    const dying = await h.client({ clientId: "dying", will: { topic: "wills/dying", payload: Buffer.from("gone"), qos: 1, retain: false } });
    dying.stream.destroy(); // no DISCONNECT
    await until(() => got.length === 1, 5000, "the will");
    expect(got[0]?.payload).toBe("gone");
  });

  it("keeps a resumed session's subscriptions and queued messages", async () => {
    const first = await h.client({ clientId: "durable", clean: false, properties: { sessionExpiryInterval: 300 } });
    await first.subscribeAsync("q", { qos: 1 });
    await first.endAsync();
    const pub = await h.client({ clientId: "pub" });
    for (const n of ["1", "2", "3"]) await pub.publishAsync("q", n, { qos: 1 });
    const again = await h.client({ clientId: "durable", clean: false, properties: { sessionExpiryInterval: 300 } });
    const got = collect(again);
    await until(() => got.length === 3, 5000, "the queued messages");
    expect(got.map((m) => m.payload)).toEqual(["1", "2", "3"]);
  });
});
