// Redis killed (SIGKILL) and started again on the same port and AOF file (appendfsync always)
// while two broker nodes carry QoS 1 load from MQTT.js clients: while it is down the nodes refuse
// QoS 1 publishes (or the clients lose their connections) and answer 503 on /health; after it is
// back they recover, every publish that was acknowledged reaches its subscriber, and no live node
// is taken for dead because its heartbeat expired during the outage.
import { waitLimit } from "@handoff/test-kit";
import type { MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { collect, outcome, until } from "../e2e/harness.test-helpers.js";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import type { Server } from "../server.js";
import { clusterNodes, mqttUrl } from "./nodes.test-helpers.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis({ appendfsync: "always" });
const nodes = clusterNodes(redis);
const fixture = serverFixture();
// A CONNACK 0x88 while Redis is down must not stop the clients' reconnecting.
const resume = { clean: false, reconnectPeriod: 100, reconnectOnConnackError: true, properties: { sessionExpiryInterval: 300 } };

const health = async (s: Server): Promise<number> => (await fetch(`http://127.0.0.1:${String(s.ports.http)}/health`)).status;

async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + waitLimit(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Publishes m0, m1, ... one at a time until stopped; a publish that gets no answer in 5 s counts as not acknowledged.
function load(pub: MqttClient, topic: string): { readonly acked: string[]; readonly refused: () => number; stop(): Promise<void> } {
  const acked: string[] = [];
  let refused = 0;
  const state = { stopped: false };
  const loop = (async () => {
    for (let i = 0; !state.stopped; i += 1) {
      const payload = `m${String(i)}`;
      const answer = await Promise.race([outcome(pub.publishAsync(topic, payload, { qos: 1 })), new Promise<"none">((resolve) => setTimeout(() => { resolve("none"); }, 5000))]);
      if (answer === "ok") acked.push(payload);
      else {
        refused += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  })();
  return {
    acked,
    refused: () => refused,
    stop: async () => {
      state.stopped = true;
      await loop;
    },
  };
}

describe.skipIf(!hasRedis)("Redis restarted under load", () => {
  it("no acknowledged message is lost; the nodes refuse and report 503 while it is down, then recover", async () => {
    // A node timeout far shorter than the outage: every heartbeat expires while Redis is down.
    const servers = [await nodes.start("n1", ["--node-timeout-ms", "300"]), await nodes.start("n2", ["--node-timeout-ms", "300"])];
    const takenOver: string[] = [];
    const pairs = await Promise.all(
      servers.map(async (s, i) => {
        const sub = await fixture.connect(mqttUrl(s), { clientId: `sub${String(i)}`, ...resume });
        await sub.subscribeAsync(`load/${String(i)}`, { qos: 1 });
        const pub = await fixture.connect(mqttUrl(s), { clientId: `pub${String(i)}`, ...resume });
        for (const c of [sub, pub]) {
          c.on("error", () => undefined); // refused reconnects while Redis is down
          c.on("disconnect", (packet) => {
            if (packet.reasonCode === 0x8e) takenOver.push(c.options.clientId ?? "");
          });
        }
        return { got: collect(sub), running: load(pub, `load/${String(i)}`) };
      }),
    );
    await until(() => pairs.every((p) => p.running.acked.length >= 50), 20_000, "load before the crash");
    await redis.server.crash();
    try {
      for (const s of servers) await eventually(async () => (await health(s)) === 503, 10_000, "/health to report the store");
      const before = pairs.map((p) => p.running.refused());
      await until(() => pairs.every((p, i) => p.running.refused() > (before[i] ?? 0)), 15_000, "publishes refused while Redis is down");
    } finally {
      await redis.server.revive();
    }
    for (const s of servers) await eventually(async () => (await health(s)) === 200, 15_000, "the nodes to recover");
    const after = pairs.map((p) => p.running.acked.length);
    await until(() => pairs.every((p, i) => p.running.acked.length >= (after[i] ?? 0) + 50), 20_000, "load after the restart");
    await Promise.all(pairs.map((p) => p.running.stop()));
    for (const { got, running } of pairs) {
      await until(() => running.acked.every((m) => got.some((g) => g.payload === m)), 20_000, "every acknowledged message at its subscriber");
      expect(running.acked.filter((m) => !got.some((g) => g.payload === m))).toEqual([]);
    }
    // Heartbeats that expired during the outage made no live node look dead: nobody's session was taken over.
    expect(takenOver).toEqual([]);
  });
});
