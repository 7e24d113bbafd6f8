// Acknowledged means delivered, at every commit boundary: the broker "process" dies in its commit
// worker, right before or right after the COMMIT of its Nth transaction (for every N a run makes),
// and a fresh broker restored from the SQLite file takes over, while real MQTT.js clients keep their
// own session state across the restart — QoS 1 and 2 publishers, online subscribers acknowledging
// at once or late (holding PUBACK/PUBREC, or holding PUBCOMP), and an offline subscriber that
// drains at the end.
import type { MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { deliveryViolations, type Published, type Received } from "../e2e/delivery-oracle.test-helpers.js";
import type { Got } from "../e2e/harness.test-helpers.js";
import { CRASH_TESTS_TIMEOUT_MS, CrashWorld, everyKillPoint, recordPublisher, type KillPoint } from "./crash-world.test-helpers.js";

type Mode = "at-once" | "late-pubrec" | "late-pubcomp" | "offline";

interface Subscriber {
  readonly id: string;
  readonly qos: 1 | 2;
  readonly mode: Mode;
  readonly got: Got[];
  readonly held: (() => void)[];
  client?: MqttClient;
}

interface Publisher {
  readonly id: string;
  readonly qos: 1 | 2;
  readonly acknowledged: string[];
  readonly sends: Map<string, number>;
  next: number;
  client?: MqttClient;
}

const SUBSCRIBERS: readonly (readonly [string, 1 | 2, Mode])[] = [
  ["s-q2", 2, "at-once"],
  ["s-q1", 1, "at-once"],
  ["s-late-rec", 2, "late-pubrec"],
  ["s-late-comp", 2, "late-pubcomp"],
  ["s-late-q1", 1, "late-pubrec"],
  ["s-offline", 2, "offline"],
];
const ROUNDS = 2;
const PER_ROUND = 2;

async function connectSubscriber(world: CrashWorld, s: Subscriber): Promise<MqttClient> {
  const options = {
    // Late subscribers hold their acknowledgement until the test releases it (MQTT.js reads
    // nothing more from the connection meanwhile).
    customHandleAcks: (_topic: string, _message: Buffer, _packet: unknown, done: (code: number) => void) => {
      if (s.mode === "late-pubrec") s.held.push(() => { done(0); });
      else done(0);
    },
  };
  return world.client(s.id, options, (client) => {
    if (s.mode === "late-pubcomp") {
      client.handleMessage = (_packet, callback) => {
        s.held.push(() => { callback(); });
      };
    }
    if (process.env["CRASH_TRACE"] === s.id) trace(s.id, client);
    client.on("message", (topic, payload, packet) => {
      s.got.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, dup: packet.dup });
    });
  });
}

// CRASH_TRACE=<client id> prints that client's packets (with CRASH_AT=<commit>:<before|after>).
function trace(id: string, client: MqttClient): void {
  const show = (p: { cmd: string; messageId?: number; payload?: string | Buffer; dup?: boolean }): string =>
    `${p.cmd} ${String(p.messageId ?? "")} ${p.payload === undefined ? "" : p.payload.toString()} ${p.dup === true ? "DUP" : ""}`;
  client.on("packetsend", (p) => { console.log(`${id} -> ${show(p)}`); });
  client.on("packetreceive", (p) => { console.log(`${id} <- ${show(p)}`); });
  client.on("close", () => { console.log(`${id} closed`); });
}

function release(subscribers: readonly Subscriber[]): void {
  for (const s of subscribers) for (const done of s.held.splice(0)) done();
}

// Releases held acknowledgements until none is held (each release lets MQTT.js read on).
async function drain(world: CrashWorld, subscribers: readonly Subscriber[]): Promise<void> {
  for (let i = 0; i < 100 && subscribers.some((s) => s.held.length > 0); i++) {
    release(subscribers);
    await world.settle();
  }
}

/** One run; `kill` counts commits from the end of the setup. Returns violations and commits made. */
async function run(kill: KillPoint | undefined): Promise<{ readonly violations: string[]; readonly commits: number; readonly died: boolean }> {
  const world = new CrashWorld();
  try {
    const subscribers: Subscriber[] = SUBSCRIBERS.map(([id, qos, mode]) => ({ id, qos, mode, got: [], held: [] }));
    for (const s of subscribers) {
      s.client = await connectSubscriber(world, s);
      await s.client.subscribeAsync("t/#", { qos: s.qos });
      if (s.mode === "offline") await s.client.endAsync();
    }
    const publishers: Publisher[] = [
      { id: "p2", qos: 2, acknowledged: [], sends: new Map(), next: 0 },
      { id: "p1", qos: 1, acknowledged: [], sends: new Map(), next: 0 },
    ];
    for (const p of publishers) {
      const client = await world.client(p.id, {}, (c) => {
        if (process.env["CRASH_TRACE"] === p.id) trace(p.id, c);
      });
      recordPublisher(client, p);
      p.client = client;
    }
    await world.settle();
    const setup = world.life.commits;
    if (kill !== undefined) world.life.arm(kill);
    const online = (): MqttClient[] =>
      [...subscribers.filter((s) => s.mode !== "offline").map((s) => s.client), ...publishers.map((p) => p.client)].filter((c) => c !== undefined);

    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) {
        for (const p of publishers) {
          const payload = `${p.id}:${String(p.next++)}`;
          p.client?.publish("t/x", payload, { qos: p.qos });
        }
      }
      await world.settle();
      release(subscribers);
      await world.settle();
      await world.restartIfDead(online(), () => drain(world, subscribers));
    }
    // The offline subscriber comes back (a new MQTT.js client: it held nothing in flight) and
    // everyone finishes what is owed.
    const away = subscribers.find((s) => s.mode === "offline");
    const offline = away === undefined ? undefined : await connectSubscriber(world, away);
    for (let i = 0; i < 200; i++) {
      await world.settle();
      if (i >= 2 && subscribers.every((s) => s.held.length === 0) && !world.life.dead) break;
      release(subscribers);
      await world.settle();
      const all = offline === undefined ? online() : [...online(), offline];
      await world.restartIfDead(all, () => drain(world, subscribers));
    }
    const published: Published[] = publishers.map((p) => ({ publisher: p.id, qos: p.qos, acknowledged: p.acknowledged, sends: p.sends }));
    const received: Received[] = subscribers.map((s) => ({ subscriber: s.id, qos: s.qos, got: s.got }));
    const violations = deliveryViolations(published, received);
    const total = publishers.reduce((n, p) => n + p.next, 0);
    const acked = publishers.reduce((n, p) => n + p.acknowledged.length, 0);
    if (acked !== total) violations.push(`only ${String(acked)} of ${String(total)} publishes were acknowledged in the end`);
    return { violations, commits: world.life.commits - (world.deaths > 0 ? 0 : setup), died: world.deaths > 0 };
  } finally {
    await world.close();
  }
}

describe("a crash at any commit boundary", () => {
  it("loses no acknowledged message and duplicates no QoS 2 one, dying before or after each commit", { timeout: CRASH_TESTS_TIMEOUT_MS }, async () => {
    const baseline = await run(undefined);
    expect(baseline.violations).toEqual([]);
    expect(baseline.commits).toBeGreaterThan(5);
    // CRASH_AT=<commit>:<before|after> runs that one kill point (with CRASH_TRACE to see packets).
    const only = process.env["CRASH_AT"]?.split(":");
    const when = only?.[1] === "before" ? "before" : "after";
    expect(await everyKillPoint(run, baseline.commits, only === undefined ? undefined : { commit: Number(only[0]), when })).toEqual([]);
  });
});
