// Takeover churn over real sockets with MQTT.js, MQTT 5 and 3.1.1: 20 client ids each taken over
// again and again while connected, the new connection clean or resuming, while a QoS 1 publisher
// sends about 2,000 msg/s to them. Checked after the run: Session Present is 1 exactly when a
// resumable session existed, a clean session never receives what was routed before its
// subscription or for a subscription it did not make, every acknowledged message reaches every
// session subscribed when it was routed across all its resumes, repeats come only with DUP=1, and
// first copies arrive in publish order.
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { deliveryViolations } from "./delivery-oracle.test-helpers.js";
import { collect, until, type Got } from "./harness.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();

const IDS = 20;
const CHURN_MS = 3000;
const RATE = 2000; // messages per second, over all ids
const MAX_IN_FLIGHT = 48; // below the broker's Receive Maximum (64): MQTT.js does not hold back itself
const DRAIN_MS = 10_000;

/** How one connection connects: Clean Start (3.1.1: CleanSession) and the Session Expiry Interval. */
interface Mode {
  readonly clean: boolean;
  readonly expiry: number;
}
const RESUME: Mode = { clean: false, expiry: 300 };
const CLEAN: Mode = { clean: true, expiry: 0 };
const FRESH_KEPT: Mode = { clean: true, expiry: 300 }; // MQTT 5: a new session that outlives its connection
const RESUME_ENDING: Mode = { clean: false, expiry: 0 }; // MQTT 5: resumes, then ends with this connection

// Each id walks its cycle from its own offset, so every kind of transition happens, in a schedule
// that is the same every run. In 3.1.1 a session is resumable after CleanSession=0 only.
const CYCLES: Readonly<Record<4 | 5, readonly Mode[]>> = {
  5: [RESUME, RESUME, CLEAN, RESUME, FRESH_KEPT, RESUME, RESUME_ENDING, RESUME, RESUME_ENDING, CLEAN],
  4: [RESUME, RESUME, CLEAN, RESUME, CLEAN, CLEAN, RESUME, RESUME, RESUME, CLEAN],
};
/**
 * How a connection acknowledges: at once (MQTT.js's default), 15 ms late per message, or never.
 * MQTT.js handles one message at a time and sends its PUBACK when `handleMessage` calls back, so a
 * late or stalled connection reads nothing more meanwhile: it is taken over with deliveries in
 * flight that a resume must send again, with DUP=1.
 */
type Acks = "prompt" | "slow" | "stalled";
function pace(client: MqttClient, acks: Acks): void {
  if (acks === "slow") {
    client.handleMessage = (_packet, callback) => {
      setTimeout(callback, 15);
    };
  } else if (acks === "stalled") {
    client.handleMessage = () => undefined;
  }
}
const resumable = (version: 4 | 5, mode: Mode): boolean => (version === 5 ? mode.expiry > 0 : !mode.clean);

/** One QoS 1 message of the publisher: payload `p:<n>`, times from performance.now(). */
interface Sent {
  readonly payload: string;
  readonly topic: string;
  readonly sent: number;
  acked?: number;
}

/** One session, from the connection that created it through every connection that resumed it. */
interface Lifetime {
  readonly name: string;
  readonly filter: string;
  readonly subscribeSent: number;
  subscribed: number;
  /** What each of its connections received, in connection order. */
  readonly connections: Got[][];
  /** When the test stopped counting on it: messages acknowledged before this are owed to it. */
  end: number;
}

const received = (l: Lifetime): Got[] => l.connections.flat();

/** The messages `l` must get: on its topic, sent after its SUBACK, acknowledged before its end. */
function owed(l: Lifetime, sent: readonly Sent[]): Sent[] {
  return sent.filter((m) => m.topic === l.filter && m.sent > l.subscribed && m.acked !== undefined && m.acked < l.end);
}

const missing = (l: Lifetime, sent: readonly Sent[]): number => {
  const got = new Set(received(l).map((g) => g.payload));
  return owed(l, sent).filter((m) => !got.has(m.payload)).length;
};

async function churn(version: 4 | 5, storage: "sqlite" | "memory"): Promise<void> {
  const server = await fx.start(["--storage", storage]);
  const url = `mqtt://127.0.0.1:${String(server.ports.mqtt ?? 0)}`;
  const prefix = `churn/v${String(version)}`;
  const topicOf = (id: number, side: number): string => `${prefix}/${String(id)}/${side === 0 ? "a" : "b"}`;

  const connect = (options: IClientOptions, acks: Acks = "prompt"): Promise<{ client: MqttClient; sessionPresent: boolean }> =>
    new Promise((resolve, reject) => {
      const client = fx.track(mqtt.connect(url, { protocolVersion: version, reconnectPeriod: 0, resubscribe: false, connectTimeout: 5000, ...options }));
      pace(client, acks); // before CONNACK: a resumed session's deliveries follow it at once
      client.once("connect", (connack) => {
        resolve({ client, sessionPresent: connack.sessionPresent });
      });
      client.once("error", reject);
    });

  // The publisher: paced to RATE, at most MAX_IN_FLIGHT unacknowledged, round robin over the ids
  // and, per id, alternating between its two topics.
  const sent: Sent[] = [];
  const byId: Sent[][] = Array.from({ length: IDS }, () => []);
  const { client: pub } = await connect({ clientId: `churn-pub-v${String(version)}`, clean: true });
  const publishErrors: string[] = [];
  let inFlight = 0;
  const publishing = { on: true };
  const started = performance.now();
  const publisher = (async () => {
    while (publishing.on) {
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      while (sent.length < due && inFlight < MAX_IN_FLIGHT) {
        const n = sent.length;
        const id = n % IDS;
        const m: Sent = { payload: `p:${String(n)}`, topic: topicOf(id, Math.floor(n / IDS) % 2), sent: performance.now() };
        sent.push(m);
        byId[id]?.push(m);
        inFlight += 1;
        pub.publish(m.topic, m.payload, { qos: 1 }, (err) => {
          inFlight -= 1;
          if (err) publishErrors.push(`${m.payload}: ${err.message}`);
          else m.acked = performance.now();
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();

  // The churners: per id, a new connection every 40..240 ms, each taking over the one before.
  const mismatches: string[] = [];
  const lifetimes: Lifetime[][] = Array.from({ length: IDS }, () => []);
  const counts = { takeovers: 0, resumed: 0, renewed: 0 };
  const deadline = started + CHURN_MS;
  const churner = async (id: number): Promise<void> => {
    const clientId = `churn-v${String(version)}-${String(id)}`;
    const cycle = CYCLES[version];
    const mine = lifetimes[id] ?? [];
    const published = byId[id] ?? [];
    let previous: Mode | undefined;
    let stalled = false;
    // Past the deadline, a stalled connection is still taken over by the resume it waits for.
    for (let step = 0; performance.now() < deadline || step < 2 || stalled; step++) {
      const mode = cycle[(id + step) % cycle.length] ?? RESUME;
      const next = cycle[(id + step + 1) % cycle.length] ?? RESUME;
      const expected = previous !== undefined && !mode.clean && resumable(version, previous);
      const current = mine.at(-1);
      if (current !== undefined && !expected) {
        // The session ends with this takeover: all it was owed until now must have arrived first
        // (it is online and reading); what is in flight after this may go with it.
        current.end = performance.now();
        await until(() => missing(current, published) === 0, DRAIN_MS, "drain").catch(() => undefined);
      }
      // Only a connection that the next one resumes may stall: a session that ends is first
      // drained (above), which a stalled connection never would be.
      stalled = (id + step) % 3 === 0 && !next.clean && resumable(version, mode);
      const acks = stalled ? "stalled" : (id + step) % 3 === 1 ? "slow" : "prompt";
      const { client, sessionPresent } = await connect({ clientId, clean: mode.clean, ...(version === 5 ? { properties: { sessionExpiryInterval: mode.expiry } } : {}) }, acks);
      if (previous !== undefined) counts.takeovers += 1;
      if (sessionPresent !== expected) mismatches.push(`${clientId} step ${String(step)}: session present ${String(sessionPresent)} after ${JSON.stringify(previous)} with ${JSON.stringify(mode)}`);
      if (expected && current !== undefined) {
        counts.resumed += 1;
        current.connections.push(collect(client));
      } else {
        if (previous !== undefined) counts.renewed += 1;
        // A new session subscribes to the other topic of the id than the session before, so a
        // message of the old subscription reaching it is caught by its topic alone.
        const filter = topicOf(id, mine.length % 2);
        const lifetime: Lifetime = { name: `${clientId}#${String(mine.length)}`, filter, subscribeSent: performance.now(), subscribed: Infinity, connections: [collect(client)], end: Infinity };
        await client.subscribeAsync(filter, { qos: 1 });
        lifetime.subscribed = performance.now();
        mine.push(lifetime);
      }
      previous = mode;
      await new Promise((resolve) => setTimeout(resolve, 40 + ((id * 37 + step * 53) % 200)));
    }
  };
  await Promise.all(Array.from({ length: IDS }, (_, id) => churner(id)));
  publishing.on = false;
  await publisher;
  await until(() => inFlight === 0, DRAIN_MS, "the publisher's acknowledgements");
  const seconds = (performance.now() - started) / 1000;

  // The sessions still connected are owed everything acknowledged.
  const all = lifetimes.flatMap((mine, id) => mine.map((l) => ({ l, published: byId[id] ?? [] })));
  await until(() => all.every(({ l, published }) => missing(l, published) === 0), DRAIN_MS, "the last sessions to drain").catch(() => undefined);

  const strays: string[] = [];
  const violations: string[] = [];
  const byPayload = new Map(sent.map((m) => [m.payload, m]));
  let owedTotal = 0;
  for (const { l, published } of all) {
    for (const g of received(l)) {
      const m = byPayload.get(g.payload);
      // Routed before its SUBSCRIBE was sent, or for the other topic: not its subscription's.
      if (m === undefined || g.topic !== l.filter || (m.acked ?? Infinity) < l.subscribeSent) strays.push(`${l.name} (${l.filter}) got ${g.payload} on ${g.topic}`);
    }
    const acknowledged = owed(l, published).map((m) => m.payload);
    owedTotal += acknowledged.length;
    const sends = new Map(published.map((m) => [m.payload, 1]));
    violations.push(...deliveryViolations([{ publisher: "p", qos: 1, acknowledged, sends }], [{ subscriber: l.name, qos: 1, got: received(l) }]));
  }
  const acked = sent.filter((m) => m.acked !== undefined).length;
  const dups = all.reduce((n, { l }) => n + received(l).filter((g) => g.dup).length, 0);
  console.log(
    `takeover churn MQTT ${version === 5 ? "5" : "3.1.1"} (${storage}): ${String(counts.takeovers)} takeovers (${String(counts.resumed)} resumed, ${String(counts.renewed)} new sessions) ` +
      `over ${String(IDS)} ids; ${String(acked)} messages acknowledged in ${seconds.toFixed(1)} s (${(acked / seconds).toFixed(0)} msg/s), ` +
      `${String(owedTotal)} owed deliveries, ${String(dups)} DUP resends; ` +
      `${String(mismatches.length)} session-present mismatches, ${String(strays.length)} strays, ${String(violations.length)} lost/duplicate/order violations`,
  );
  expect(publishErrors).toEqual([]);
  expect(mismatches).toEqual([]);
  expect(strays).toEqual([]);
  expect(violations).toEqual([]);
  // Not vacuous: both kinds of takeover happened and sessions were owed messages across them.
  expect(counts.resumed).toBeGreaterThan(0);
  expect(counts.renewed).toBeGreaterThan(0);
  expect(owedTotal).toBeGreaterThan(0);
}

// SQLite (the default) makes acknowledgements and deliveries wait for commits; memory storage
// takes that wait away, so the same schedule meets the broker at other moments.
describe.each(["sqlite", "memory"] as const)("takeover churn while a QoS 1 publisher sends (%s storage)", (storage) => {
  it("MQTT 5: session present exactly when resumable, no strays, nothing lost, repeats only as DUP", async () => {
    await churn(5, storage);
  }, 30_000);

  it("MQTT 3.1.1: session present exactly when resumable, no strays, nothing lost, repeats only as DUP", async () => {
    await churn(4, storage);
  }, 30_000);
});
