// The whole broker on `--storage redis`, over real sockets with MQTT.js: what a broker
// acknowledged is there for the next broker on the same Redis, a broker that loses Redis refuses
// QoS 1/2 with 0x97 and says so on /health until Redis is back, and a client id taken on another
// node loses its connection here with DISCONNECT 0x8E.
import { describe, expect, it } from "vitest";
import { hasRedis, useRedis } from "../cluster/redis.test-helpers.js";
import { collect, outcome, until } from "../e2e/harness.test-helpers.js";
import { serverFixture } from "../e2e/server-harness.test-helpers.js";
import { readFileSync } from "node:fs";
import type { IDisconnectPacket } from "mqtt";
import { pino } from "pino";
import { loadConfig } from "../config/index.js";
import { startServer, type Server } from "../server.js";

const redis = useRedis({ appendfsync: "always" });
const fixture = serverFixture();
let prefixes = 0;

const mqttUrl = (s: Server): string => `mqtt://127.0.0.1:${String(s.ports.mqtt)}`;

// Polls an asynchronous condition (the harness's until() takes synchronous ones).
async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}


describe.skipIf(!hasRedis)("the broker on --storage redis", () => {
  it("a queued session, its QoS 1 messages in order and a retained message outlive the broker that acknowledged them", async () => {
    const flags = ["--storage", "redis", "--redis-url", redis.server.url, "--redis-prefix", `e2e${String(prefixes++)}:`, "--node-id", "n1"];
    const first = await fixture.start(flags);
    const sub = await fixture.connect(mqttUrl(first), { clientId: "sub", clean: false, properties: { sessionExpiryInterval: 3600 } });
    await sub.subscribeAsync("t/#", { qos: 1 });
    await sub.endAsync();
    const pub = await fixture.connect(mqttUrl(first), { clientId: "pub" });
    for (let i = 0; i < 5; i += 1) await pub.publishAsync("t/a", `m${String(i)}`, { qos: 1 });
    await pub.publishAsync("t/retained", "kept", { qos: 1, retain: true });
    await pub.endAsync();
    await first.close();
    fixture.closed();

    const second = await fixture.start(flags);
    const back = await fixture.connect(mqttUrl(second), { clientId: "sub", clean: false, properties: { sessionExpiryInterval: 3600 } });
    const got = collect(back);
    await until(() => got.length >= 6, 5000, "the queued messages");
    expect(got.map((g) => g.payload)).toEqual(["m0", "m1", "m2", "m3", "m4", "kept"]);
    const late = await fixture.connect(mqttUrl(second), { clientId: "late" });
    const seen = collect(late);
    await late.subscribeAsync("t/retained", { qos: 1 });
    await until(() => seen.length === 1, 5000, "the retained message");
    expect(seen[0]?.payload).toBe("kept");
  });

  it("refuses QoS 1/2 with 0x97 while Redis is down, answers 503 on /health, and recovers", async () => {
    const server = await fixture.start(["--storage", "redis", "--redis-url", redis.server.url, "--redis-prefix", `e2e${String(prefixes++)}:`, "--node-id", "n1"]);
    const health = async (): Promise<number> => (await fetch(`http://127.0.0.1:${String(server.ports.http)}/health`)).status;
    const pub = await fixture.connect(mqttUrl(server), { clientId: "pub" });
    expect(await health()).toBe(200);
    await redis.server.crash();
    try {
      // A QoS 0 retained message records a change nobody waits for: its batch is the first to fail.
      await pub.publishAsync("t/retained", "r", { qos: 0, retain: true });
      await eventually(async () => (await health()) === 503, 5000, "/health to report the store");
      expect(await outcome(pub.publishAsync("t/a", "refused", { qos: 1 }))).toBe(0x97);
      expect(await outcome(pub.publishAsync("t/a", "refused", { qos: 2 }))).toBe(0x97);
      expect(pub.connected).toBe(true);
    } finally {
      await redis.server.revive();
    }
    await eventually(async () => (await health()) === 200, 10_000, "the store to recover");
    expect(await outcome(pub.publishAsync("t/a", "after", { qos: 1 }))).toBe("ok");
  });

  it("closes a connection with DISCONNECT 0x8E when its client id connects to another node", async () => {
    const flags = (node: string): string[] => ["--storage", "redis", "--redis-url", redis.server.url, "--redis-prefix", `e2e${String(prefixes)}:`, "--node-id", node];
    prefixes += 1;
    const one = await fixture.start(flags("n1"));
    const loaded = loadConfig(["--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0", ...flags("n2")], {}, (p) => readFileSync(p, "utf8"));
    if (loaded.kind !== "run") throw new Error("help");
    const two = await startServer(loaded.config, pino({ level: "silent" }));
    try {
      const first = await fixture.connect(mqttUrl(one), { clientId: "hopper", clean: false, properties: { sessionExpiryInterval: 3600 } });
      const disconnected = new Promise<IDisconnectPacket>((resolve) => {
        first.once("disconnect", resolve);
      });
      await fixture.connect(mqttUrl(two), { clientId: "hopper", clean: false, properties: { sessionExpiryInterval: 3600 } });
      expect((await disconnected).reasonCode).toBe(0x8e);
    } finally {
      await two.close();
    }
  });
});
