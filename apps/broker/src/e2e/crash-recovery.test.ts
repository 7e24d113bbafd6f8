// Nothing acknowledged is ever lost: a real broker child process is SIGKILLed in the middle of
// QoS 1 and QoS 2 traffic and restarted on the same data directory. Every message whose
// PUBACK/PUBCOMP the publisher received reaches the resumed subscriber, in order, with no
// duplicate except DUP=1 resends; retained messages and unexpired sessions survive.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_TIMEOUT_MS, WAIT_LIMIT_MS } from "@handoff/test-kit";
import mqtt, { type MqttClient } from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { children, kill, startBroker, startBrokerOnAnyPort } from "./broker-process.test-helpers.js";
import { until } from "./harness.test-helpers.js";

const clients = new Set<MqttClient>();
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all([...clients].map((c) => c.endAsync(true)));
  clients.clear();
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Seen {
  readonly id: number;
  readonly dup: boolean;
}

async function crashRun(qos: 1 | 2, killAfterMs: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "handoff-crash-"));
  dirs.push(dataDir);
  // The first process binds a port of its own; restarts take that port again.
  const started = await startBrokerOnAnyPort(dataDir);
  const port = started.port;
  let broker = started.child;
  const url = `mqtt://127.0.0.1:${String(port)}`;

  // The subscriber keeps one client object across the restart, so its QoS 2 receive state
  // (packet ids awaiting PUBREL) lives on as a real client's would.
  const seen: Seen[] = [];
  const sub = mqtt.connect(url, { clientId: "sub", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 3600 }, reconnectPeriod: 100, connectTimeout: WAIT_LIMIT_MS });
  clients.add(sub);
  sub.on("message", (_topic, payload, packet) => {
    seen.push({ id: Number(payload.toString()), dup: packet.dup });
  });
  sub.on("error", () => undefined);
  await new Promise<void>((resolve) => sub.once("connect", () => { resolve(); }));
  await sub.subscribeAsync("crash/#", { qos });

  const pub = mqtt.connect(url, { clientId: "pub", protocolVersion: 5, reconnectPeriod: 0, connectTimeout: WAIT_LIMIT_MS });
  clients.add(pub);
  pub.on("error", () => undefined);
  await new Promise<void>((resolve) => pub.once("connect", () => { resolve(); }));
  const acked: number[] = [];
  let next = 0;
  // MQTT.js leaves the promises of unacknowledged publishes pending when the connection dies.
  const gone = new Promise<void>((resolve) => pub.once("close", () => { resolve(); }));
  const traffic = (async () => {
    // A window of 8 publishes in flight, like a real producer.
    const inflight = new Set<Promise<void>>();
    while (pub.connected) {
      const id = next++;
      const p: Promise<void> = pub.publishAsync("crash/t", String(id), { qos }).then(
        () => {
          acked.push(id);
        },
        () => undefined,
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      if (inflight.size >= 8) await Promise.race([...inflight, gone]);
    }
  })();

  // Traffic is flowing (on a loaded machine the first acknowledgement can take a while).
  await until(() => acked.length > 0, 20_000, "a first acknowledgement");
  await new Promise((resolve) => setTimeout(resolve, killAfterMs));
  await kill(broker);
  await traffic;
  const ackedBeforeKill = [...acked];
  expect(ackedBeforeKill.length).toBeGreaterThan(0);

  broker = await startBroker(port, dataDir);
  await until(() => ackedBeforeKill.every((id) => seen.some((s) => s.id === id)), 10_000, "every acknowledged message after the restart");

  // Order: first deliveries strictly increasing. Duplicates: only DUP=1 resends (QoS 1), none at QoS 2.
  const first = new Set<number>();
  const firstOrder: number[] = [];
  for (const s of seen) {
    if (first.has(s.id)) {
      expect(qos).toBe(1);
      expect(s.dup).toBe(true);
    } else {
      first.add(s.id);
      firstOrder.push(s.id);
    }
  }
  expect(firstOrder).toEqual([...firstOrder].sort((a, b) => a - b));
  await kill(broker);
}

describe("crash recovery (SIGKILL, restart on the same data directory)", () => {
  for (const [qos, killAfterMs] of [
    [1, 150],
    [1, 600],
    [2, 150],
    [2, 600],
  ] as const) {
    it(`loses no acknowledged QoS ${String(qos)} message when killed after ${String(killAfterMs)} ms of traffic`, { timeout: TEST_TIMEOUT_MS }, async () => {
      await crashRun(qos, killAfterMs);
    });
  }

  it("keeps retained messages and unexpired sessions, and drops expired ones", { timeout: TEST_TIMEOUT_MS }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "handoff-crash-"));
    dirs.push(dataDir);
    const started = await startBrokerOnAnyPort(dataDir);
    const port = started.port;
    let broker = started.child;
    const url = `mqtt://127.0.0.1:${String(port)}`;
    const connect = async (options: mqtt.IClientOptions) => {
      const c = mqtt.connect(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: WAIT_LIMIT_MS, ...options });
      clients.add(c);
      const sessionPresent = await new Promise<boolean>((resolve, reject) => {
        c.once("connect", (connack) => {
          resolve(connack.sessionPresent);
        });
        c.once("error", reject);
      });
      return { c, sessionPresent };
    };
    const { c: p } = await connect({ clientId: "p" });
    await p.publishAsync("state/door", "open", { qos: 1, retain: true });
    // Each session leaves with its will (DISCONNECT 0x04), which "p" gets at QoS 1: the broker
    // sends it only after the commit recording it, which records the disconnect it came with, so
    // both disconnects are on disk before the kill (however slow the machine).
    const wills: string[] = [];
    p.on("message", (topic) => wills.push(topic));
    await p.subscribeAsync("gone/#", { qos: 1 });
    const will = (topic: string): mqtt.IClientOptions["will"] => ({ topic, payload: Buffer.from("bye"), qos: 1, retain: false });
    const { c: longLived } = await connect({ clientId: "long", clean: false, properties: { sessionExpiryInterval: 3600 }, will: will("gone/long") });
    await longLived.subscribeAsync("x", { qos: 1 });
    const { c: shortLived } = await connect({ clientId: "short", clean: false, properties: { sessionExpiryInterval: 1 }, will: will("gone/short") });
    await shortLived.subscribeAsync("x", { qos: 1 });
    await longLived.endAsync(false, { reasonCode: 0x04 });
    await shortLived.endAsync(false, { reasonCode: 0x04 });
    await until(() => wills.length === 2, 5000, "both wills (the disconnects committed)");
    await kill(broker);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // "short" expires while the broker is down
    broker = await startBroker(port, dataDir);
    expect((await connect({ clientId: "long", clean: false, properties: { sessionExpiryInterval: 3600 } })).sessionPresent).toBe(true);
    expect((await connect({ clientId: "short", clean: false, properties: { sessionExpiryInterval: 1 } })).sessionPresent).toBe(false);
    const { c: reader } = await connect({ clientId: "reader" });
    const got: string[] = [];
    reader.on("message", (_t, payload) => got.push(payload.toString()));
    await reader.subscribeAsync("state/#", { qos: 1 });
    await until(() => got.length === 1);
    expect(got).toEqual(["open"]);
    await kill(broker);
  });
});
