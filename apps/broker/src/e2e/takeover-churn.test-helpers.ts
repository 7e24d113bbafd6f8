// Test-only: takeover churn over real sockets with MQTT.js, MQTT 5 and 3.1.1: 20 client ids each
// taken over again and again while connected, the new connection clean or resuming, while QoS 1
// publishers send to them. One broker or a cluster: each connection goes where `urlFor` says, so
// in a cluster an id hops between nodes. Checked after the run: Session Present is 1 exactly when
// a resumable session existed, a clean session never receives what was routed for a subscription
// it did not make, every acknowledged message reaches every session subscribed when it was routed
// across all its resumes, repeats come only with DUP=1, and first copies arrive in publish order
// per publisher.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { expect } from "vitest";
import { deliveryViolations } from "./delivery-oracle.test-helpers.js";
import { collect, until, type Got } from "./harness.test-helpers.js";

const IDS = 20;
const MAX_IN_FLIGHT = 48; // per publisher, below the broker's Receive Maximum (64): MQTT.js does not hold back itself
/** How long a session may take to get what it is owed: a safety net (a loaded machine is slow). */
const DRAIN_MS = WAIT_LIMIT_MS;
// Each session subscribes to a topic of its id that neither of the two sessions before it had, so a
// copy planned for an earlier session reaching it is caught by its topic alone.
const TOPICS_PER_ID = 3;

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

/** One QoS 1 message: payload `<publisher>:<n>`, n counted per publisher; times from performance.now(). */
interface Sent {
  readonly publisher: string;
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

/** Where the churn runs. */
export interface ChurnSetup {
  readonly version: 4 | 5;
  /** Names the run in its summary line. */
  readonly label: string;
  /** Ends a client after the test. */
  readonly track: (client: MqttClient) => MqttClient;
  /** One publisher per URL; message n goes through publisher n mod their count. */
  readonly publishers: readonly string[];
  /** Where connection `step` of id `id` connects. */
  readonly urlFor: (id: number, step: number) => string;
  /** Messages per second over all publishers and ids. */
  readonly rate: number;
  /** How long the ids churn, ms. */
  readonly churnMs: number;
  /**
   * One broker routes a message while it acknowledges it, so a copy of a message acknowledged
   * before the SUBSCRIBE was sent is a stray. A cluster routes another node's message when that
   * node's reader reaches it in the routes stream: a subscription made meanwhile gets it, under a
   * subscription the session did make. Such copies are counted in the summary, not failed.
   */
  readonly routedAtAck: boolean;
}

/** Runs the churn and fails the current test on any violation. */
export async function takeoverChurn(setup: ChurnSetup): Promise<void> {
  const { version, track, rate } = setup;
  const prefix = `churn/v${String(version)}`;
  const topicOf = (id: number, which: number): string => `${prefix}/${String(id)}/${String(which % TOPICS_PER_ID)}`;

  const connect = (url: string, options: IClientOptions, acks: Acks = "prompt"): Promise<{ client: MqttClient; sessionPresent: boolean }> =>
    new Promise((resolve, reject) => {
      const client = track(mqtt.connect(url, { protocolVersion: version, reconnectPeriod: 0, resubscribe: false, connectTimeout: WAIT_LIMIT_MS, ...options }));
      pace(client, acks); // before CONNACK: a resumed session's deliveries follow it at once
      client.once("connect", (connack) => {
        resolve({ client, sessionPresent: connack.sessionPresent });
      });
      client.once("error", reject);
    });

  // The publishers: paced to the rate together, each with at most MAX_IN_FLIGHT unacknowledged,
  // round robin over the ids and, per id, over its topics.
  const sent: Sent[] = [];
  const byId: Sent[][] = Array.from({ length: IDS }, () => []);
  const publishers = await Promise.all(
    setup.publishers.map(async (url, k) => {
      const name = `p${String(k)}`;
      const { client } = await connect(url, { clientId: `churn-${name}-v${String(version)}`, clean: true });
      return { name, client, count: 0, inFlight: 0 };
    }),
  );
  const inFlight = (): number => publishers.reduce((n, p) => n + p.inFlight, 0);
  const publishErrors: string[] = [];
  const publishing = { on: true };
  const started = performance.now();
  const publisher = (async () => {
    while (publishing.on) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      for (let stop = false; sent.length < due && !stop; ) {
        const n = sent.length;
        const pub = publishers[n % publishers.length];
        if (pub === undefined || pub.inFlight >= MAX_IN_FLIGHT) {
          stop = true;
          continue;
        }
        const id = n % IDS;
        const m: Sent = { publisher: pub.name, payload: `${pub.name}:${String(pub.count)}`, topic: topicOf(id, Math.floor(n / IDS)), sent: performance.now() };
        pub.count += 1;
        sent.push(m);
        byId[id]?.push(m);
        pub.inFlight += 1;
        pub.client.publish(m.topic, m.payload, { qos: 1 }, (err) => {
          pub.inFlight -= 1;
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
  const deadline = started + setup.churnMs;
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
      const options = { clientId, clean: mode.clean, ...(version === 5 ? { properties: { sessionExpiryInterval: mode.expiry } } : {}) };
      const { client, sessionPresent } = await connect(setup.urlFor(id, step), options, acks);
      if (previous !== undefined) counts.takeovers += 1;
      if (sessionPresent !== expected) mismatches.push(`${clientId} step ${String(step)}: session present ${String(sessionPresent)} after ${JSON.stringify(previous)} with ${JSON.stringify(mode)}`);
      if (expected && current !== undefined) {
        counts.resumed += 1;
        current.connections.push(collect(client));
      } else {
        if (previous !== undefined) counts.renewed += 1;
        const filter = topicOf(id, mine.length);
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
  await until(() => inFlight() === 0, DRAIN_MS, "the publishers' acknowledgements");
  const seconds = (performance.now() - started) / 1000;

  // The sessions still connected are owed everything acknowledged.
  const all = lifetimes.flatMap((mine, id) => mine.map((l) => ({ l, published: byId[id] ?? [] })));
  await until(() => all.every(({ l, published }) => missing(l, published) === 0), DRAIN_MS, "the last sessions to drain").catch(() => undefined);

  const strays: string[] = [];
  const violations: string[] = [];
  const byPayload = new Map(sent.map((m) => [m.payload, m]));
  let owedTotal = 0;
  let routedAfterSubscribe = 0;
  for (const { l, published } of all) {
    for (const g of received(l)) {
      const m = byPayload.get(g.payload);
      if (m === undefined || g.topic !== l.filter) strays.push(`${l.name} (${l.filter}) got ${g.payload} on ${g.topic}`);
      else if ((m.acked ?? Infinity) < l.subscribeSent) {
        // Acknowledged before the SUBSCRIBE was sent: routed before the subscription existed.
        if (setup.routedAtAck) strays.push(`${l.name} (${l.filter}) got ${g.payload}, acknowledged before its SUBSCRIBE`);
        else routedAfterSubscribe += 1;
      }
    }
    const acknowledged = owed(l, published);
    owedTotal += acknowledged.length;
    const records = publishers.map((p) => {
      const mine = published.filter((m) => m.publisher === p.name);
      return { publisher: p.name, qos: 1, acknowledged: acknowledged.filter((m) => m.publisher === p.name).map((m) => m.payload), sends: new Map(mine.map((m) => [m.payload, 1])) } as const;
    });
    violations.push(...deliveryViolations(records, [{ subscriber: l.name, qos: 1, got: received(l) }]));
  }
  const acked = sent.filter((m) => m.acked !== undefined).length;
  const dups = all.reduce((n, { l }) => n + received(l).filter((g) => g.dup).length, 0);
  console.log(
    `takeover churn MQTT ${version === 5 ? "5" : "3.1.1"} (${setup.label}): ${String(counts.takeovers)} takeovers (${String(counts.resumed)} resumed, ${String(counts.renewed)} new sessions) ` +
      `over ${String(IDS)} ids; ${String(acked)} messages acknowledged in ${seconds.toFixed(1)} s (${(acked / seconds).toFixed(0)} msg/s), ` +
      `${String(owedTotal)} owed deliveries, ${String(dups)} DUP resends` +
      (setup.routedAtAck ? "" : `, ${String(routedAfterSubscribe)} routed to a subscription made after their acknowledgement`) +
      `; ${String(mismatches.length)} session-present mismatches, ${String(strays.length)} strays, ${String(violations.length)} lost/duplicate/order violations`,
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
