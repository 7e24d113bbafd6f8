// The held lane (mqtt-router's client-session/held-lane.ts) meets a durable store and a crash. A publisher H floods a slow
// subscriber S until S is congested and H is held by flow control; while held, H keeps receiving,
// through its lane, QoS 1 and QoS 2 messages it subscribes to, one at a time (in-flight cap 1), each
// queued copy getting its packet id when H acknowledges the one before. The process dies in its
// commit worker, right before or right after the COMMIT of each of its transactions in turn, and a
// fresh broker restored from the SQLite file takes over. What passes the hold must still wait for
// its commit: a copy sent before the commit that records its packet id comes back after the crash
// as a new message (DUP=0, another packet id), and a PUBREL sent before the PUBREL phase is stored
// lets H complete a QoS 2 message that the restarted broker then delivers again. And H's own
// publishes stay acknowledged only once stored.
import type { MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { deliveryViolations, type Published } from "../e2e/delivery-oracle.test-helpers.js";
import type { Got } from "../e2e/harness.test-helpers.js";
import { CRASH_TESTS_TIMEOUT_MS, CrashWorld, everyKillPoint, recordPublisher, type KillPoint, type PublisherRecord } from "./crash-world.test-helpers.js";

// Flow control at 4 queued copies (held until back at 2), with bounds far above what a run queues
// while a session is offline: nothing is dropped by policy. One copy in flight per client.
const BROKER = { router: { queueLimits: { maxCount: 1000 }, pressure: { high: 0.004, low: 0.002 } }, outboundInflight: 1 } as const;
const FLOOD = 6;
const TO_H = 3;

interface Run {
  readonly violations: string[];
  readonly commits: number;
  readonly died: boolean;
  /** In the first life: H's acknowledgements and deliveries once its deliveries were sent. */
  readonly whileHeld: { readonly hAcknowledged: number; readonly hReceived: number } | undefined;
}

function collect(client: MqttClient, got: Got[]): void {
  client.on("message", (topic, payload, packet) => {
    got.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, dup: packet.dup });
  });
}

async function run(kill: KillPoint | undefined): Promise<Run> {
  const world = new CrashWorld(BROKER);
  try {
    const sGot: Got[] = [];
    const sHeld: (() => void)[] = [];
    // S holds its PUBACKs until released (MQTT.js reads nothing more meanwhile): its queue grows.
    const s = await world.client("s", {
      customHandleAcks: (_topic, _message, _packet, done) => {
        sHeld.push(() => { done(0); });
      },
    }, (c) => { collect(c, sGot); });
    await s.subscribeAsync("load/#", { qos: 1 });
    const hGot: Got[] = [];
    const h = await world.client("h", {}, (c) => { collect(c, hGot); });
    await h.subscribeAsync("to-h", { qos: 2 });
    const records = new Map<string, PublisherRecord>();
    const publisher = async (id: string): Promise<MqttClient> => {
      const client = await world.client(id);
      records.set(id, recordPublisher(client));
      return client;
    };
    records.set("h", recordPublisher(h));
    const p2 = await publisher("p2");
    const p1 = await publisher("p1");
    await world.settle();
    const setup = world.life.commits;
    if (kill !== undefined) world.life.arm(kill);
    const release = (): void => {
      for (const done of sHeld.splice(0)) done();
    };
    const drain = async (): Promise<void> => {
      for (let i = 0; i < 100 && sHeld.length > 0; i++) {
        release();
        await world.settle();
      }
    };
    const online = [s, h, p2, p1];

    // H floods S: S takes one and holds its acknowledgement, so H is held from the 4th on.
    for (let i = 0; i < FLOOD; i++) h.publish("load/h", `h:${String(i)}`, { qos: 1 });
    await world.settle();
    // Deliveries to the held H, through its lane.
    for (let i = 0; i < TO_H; i++) {
      p2.publish("to-h", `p2:${String(i)}`, { qos: 2 });
      p1.publish("to-h", `p1:${String(i)}`, { qos: 1 });
    }
    await world.settle();
    const whileHeld = world.deaths === 0 ? { hAcknowledged: records.get("h")?.acknowledged.length ?? 0, hReceived: hGot.length } : undefined;
    await world.restartIfDead(online, drain);
    // S reads again: the hold ends. Then everyone finishes what is owed, across any crash.
    for (let i = 0; i < 200; i++) {
      await world.settle();
      if (i >= 2 && sHeld.length === 0 && !world.life.dead) break;
      release();
      await world.settle();
      await world.restartIfDead(online, drain);
    }

    const published = (id: string, qos: 1 | 2): Published => {
      const record = records.get(id);
      return { publisher: id, qos, acknowledged: record?.acknowledged ?? [], sends: record?.sends ?? new Map<string, number>() };
    };
    const violations = [
      ...deliveryViolations([published("h", 1)], [{ subscriber: "s", qos: 1, got: sGot }]),
      ...deliveryViolations([published("p2", 2), published("p1", 1)], [{ subscriber: "h", qos: 2, got: hGot }]),
    ];
    for (const [id, total] of [["h", FLOOD], ["p2", TO_H], ["p1", TO_H]] as const) {
      const acked = records.get(id)?.acknowledged.length ?? 0;
      if (acked !== total) violations.push(`${id}: only ${String(acked)} of ${String(total)} publishes were acknowledged in the end`);
    }
    return { violations, commits: world.life.commits - (world.deaths > 0 ? 0 : setup), died: world.deaths > 0, whileHeld };
  } finally {
    await world.close();
  }
}

describe("a crash while flow control holds a publisher that is also a subscriber", () => {
  it("delivers to the held client through its lane only what is committed, at every commit boundary", { timeout: CRASH_TESTS_TIMEOUT_MS }, async () => {
    const baseline = await run(undefined);
    expect(baseline.violations).toEqual([]);
    // The scenario holds H: some of its publishes wait unacknowledged while every delivery to it got through.
    expect(baseline.whileHeld?.hAcknowledged).toBeLessThan(FLOOD);
    expect(baseline.whileHeld?.hReceived).toBe(2 * TO_H);
    expect(await everyKillPoint(run, baseline.commits)).toEqual([]);
  });
});
