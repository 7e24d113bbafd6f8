// Test-only: the crash loop of issue #23. A real broker process (SQLite storage in a temp data dir,
// queue bounds raised so that no policy drops anything) is SIGKILLed at moments drawn from a seeded
// schedule while MQTT.js publishers and subscribers keep working, and restarted on the same data
// directory each time. Every client is persistent (Clean Start 0, long Session Expiry) and
// reconnects with the same client id and the same MQTT.js object, whose stores keep its in-flight
// messages both ways. At the end the offline subscribers come back, and the delivery oracle checks
// that every message a publisher got PUBACK/PUBCOMP for (and every QoS 2 one it got PUBREC for)
// reached every subscriber owed it, exactly once at QoS 2 and at least once (DUP=1 on repeats) at
// QoS 1, in order per publisher.
// Shared by the e2e test (short) and `pnpm soak` (long).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { WAIT_LIMIT_MS, waitLimit } from "@handoff/test-kit";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { kill, startBroker, startBrokerOnAnyPort } from "./broker-process.test-helpers.js";
import { deliveryViolations, type Published, type Received } from "./delivery-oracle.test-helpers.js";
import type { Got } from "./harness.test-helpers.js";
import { seededRandom } from "./seeded-random.test-helpers.js";

/** The shape of one run. */
export interface CrashLoopOptions {
  /** QoS of every publish and every subscription. */
  readonly qos: 1 | 2;
  /** Seeds the kill schedule (gaps and downtimes). */
  readonly seed: number;
  /** SIGKILLs in the run. */
  readonly kills: number;
  /** A kill comes this long (ms, drawn uniformly) after the broker started listening. */
  readonly gapMs: readonly [number, number];
  /** Load after the last restart before the publishers stop, ms. */
  readonly tailMs: number;
  readonly publishers?: number;
  /** Publishes per second per publisher (at most {@link CrashLoopOptions.window} unacknowledged). */
  readonly rate?: number;
  readonly window?: number;
  /** Subscribers online throughout (they reconnect after each kill). */
  readonly online?: number;
  /** Subscribers that subscribe, go away, and drain at the end. */
  readonly offline?: number;
  /**
   * How long the end may take to deliver what is owed, ms: a safety net (never less than
   * test-kit's waitLimit), not a budget.
   */
  readonly drainMs?: number;
  /** Progress lines (seed, kills, figures). */
  readonly log?: (line: string) => void;
}

/** What a run did and found. */
export interface CrashLoopReport {
  readonly seed: number;
  readonly qos: 1 | 2;
  readonly kills: number;
  readonly published: number;
  /** Publishes whose PUBACK/PUBCOMP arrived. */
  readonly acknowledged: number;
  /**
   * QoS 2 publishes whose PUBREC arrived but whose PUBCOMP was lost with a killed process: the
   * restarted broker, which had stored the release, answered the repeated PUBREL with PUBCOMP 0x92
   * (Packet Identifier not found, "not an error during recovery" in MQTT 5). They are owed to every
   * subscriber like acknowledged ones.
   */
  readonly recovered: number;
  /** Messages subscribers received, repeats included. */
  readonly delivered: number;
  /** Of those, repeats (QoS 1 DUP=1 resends, or copies of a message its publisher sent twice). */
  readonly repeats: number;
  readonly elapsedMs: number;
  /** Empty when every guarantee held. */
  readonly violations: readonly string[];
}

const TOPIC = "loop";
const EXPIRY = 86_400;

class LoadPublisher {
  next = 0;
  outstanding = 0;
  /** Payloads whose PUBACK/PUBCOMP (success) arrived. */
  readonly acknowledged: string[] = [];
  readonly #acked = new Set<string>();
  /**
   * Payloads the broker took over: acknowledged, or (QoS 2) whose PUBREC arrived — the broker sends
   * it only once the message is stored, and the publisher may not send the PUBLISH again.
   */
  readonly owed: string[] = [];
  readonly #owed = new Set<string>();
  /** QoS 2 releases answered PUBCOMP 0x92 after a restart (see {@link CrashLoopReport.recovered}). */
  recovered = 0;
  readonly sends = new Map<string, number>();
  readonly refused: string[] = [];
  readonly client: MqttClient;
  // Which payload each packet id carries now: an acknowledgement is the publisher's packet
  // arriving for the payload it last sent under that id.
  readonly #byPacketId = new Map<number, string>();

  constructor(
    readonly id: string,
    readonly qos: 1 | 2,
    readonly window: number,
    url: string,
    connacks: Connacks,
  ) {
    this.client = connectClient(url, id, connacks);
    this.client.on("packetsend", (packet) => {
      if (packet.cmd !== "publish" || packet.messageId === undefined) return;
      const payload = String(packet.payload);
      this.#byPacketId.set(packet.messageId, payload);
      this.sends.set(payload, (this.sends.get(payload) ?? 0) + 1);
    });
    this.client.on("packetreceive", (packet) => {
      if ((packet.cmd !== "puback" && packet.cmd !== "pubrec" && packet.cmd !== "pubcomp") || packet.messageId === undefined) return;
      const payload = this.#byPacketId.get(packet.messageId);
      if (payload === undefined) return;
      const code = packet.reasonCode ?? 0;
      if (packet.cmd === "pubrec") {
        if (code === 0 || code === 0x10) this.#owe(payload);
        return;
      }
      this.#byPacketId.delete(packet.messageId);
      // The release was stored and the PUBCOMP lost with the process: the restarted broker no
      // longer knows the id, which MQTT 5 says is no error during recovery (the message went on
      // when the PUBREC was sent). MQTT.js still reports it as a failed publish.
      if (packet.cmd === "pubcomp" && code === 0x92 && this.#owed.has(payload)) {
        this.recovered += 1;
        return;
      }
      if (code !== 0 && code !== 0x10) return; // a refusal acknowledges nothing
      if (!this.#acked.has(payload)) {
        this.#acked.add(payload);
        this.acknowledged.push(payload);
      }
      this.#owe(payload);
    });
  }

  #owe(payload: string): void {
    if (this.#owed.has(payload)) return;
    this.#owed.add(payload);
    this.owed.push(payload);
  }

  /** One more publish if the window has room; false if it has none. */
  tick(): boolean {
    if (this.outstanding >= this.window || this.client.disconnecting) return false;
    const payload = `${this.id}:${String(this.next++)}`;
    this.outstanding += 1;
    this.client.publish(`${TOPIC}/${this.id}`, payload, { qos: this.qos }, (err) => {
      this.outstanding -= 1;
      if (err instanceof Error && !(this.#owed.has(payload) && "code" in err && err.code === 0x92)) this.refused.push(`${payload}: ${err.message}`);
    });
    return true;
  }

  /** For the oracle: what the broker took over is owed, which includes everything acknowledged. */
  get published(): Published {
    return { publisher: this.id, qos: this.qos, acknowledged: this.owed, sends: this.sends };
  }
}

class LoadSubscriber {
  readonly got: Got[] = [];
  client: MqttClient | undefined;

  constructor(
    readonly id: string,
    readonly qos: 1 | 2,
  ) {}

  async connect(url: string, connacks: Connacks): Promise<void> {
    const client = connectClient(url, this.id, connacks);
    this.client = client;
    client.on("message", (topic, payload, packet) => {
      this.got.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, dup: packet.dup });
    });
    await new Promise<void>((resolve) => client.once("connect", () => { resolve(); }));
  }

  get received(): Received {
    return { subscriber: this.id, qos: this.qos, got: this.got };
  }
}

/** Session Present of every CONNACK, by client: all but the first must be 1. */
class Connacks {
  readonly #seen = new Map<string, boolean[]>();

  note(clientId: string, sessionPresent: boolean): void {
    const list = this.#seen.get(clientId) ?? [];
    list.push(sessionPresent);
    this.#seen.set(clientId, list);
  }

  violations(): string[] {
    const out: string[] = [];
    for (const [id, list] of this.#seen) {
      list.forEach((present, i) => {
        if (i > 0 && !present) out.push(`${id}: CONNACK ${String(i + 1)} had Session Present 0`);
      });
    }
    return out;
  }

  count(clientId: string): number {
    return this.#seen.get(clientId)?.length ?? 0;
  }
}

// A persistent MQTT 5 client that reconnects by itself with the same id and the same stores.
function connectClient(url: string, clientId: string, connacks: Connacks): MqttClient {
  const options: IClientOptions = {
    clientId,
    protocolVersion: 5,
    clean: false,
    properties: { sessionExpiryInterval: EXPIRY },
    reconnectPeriod: 200,
    connectTimeout: WAIT_LIMIT_MS,
    keepalive: 30,
    // A lost session must show as lost messages, not be patched over by a new SUBSCRIBE.
    resubscribe: false,
  };
  const client = mqtt.connect(url, options);
  client.on("error", () => undefined);
  // The CONNACK itself: MQTT.js emits "connect" only after resending its stored messages.
  client.on("packetreceive", (packet) => {
    if (packet.cmd === "connack") connacks.note(clientId, packet.sessionPresent);
  });
  return client;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// Polls `check`; false once test-kit's safety net (at least `ms`) passed.
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + waitLimit(ms);
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** Runs the crash loop once; never throws for a broken guarantee (see the report's violations). */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const { qos, seed, kills } = options;
  const log = options.log ?? (() => undefined);
  const random = seededRandom(seed);
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), "handoff-loop-"));
  const dataDir = join(root, "data");
  mkdirSync(dataDir);
  const config = join(root, "broker.yaml");
  // Bounds no run comes near: every message is owed to every subscriber, none dropped by policy.
  writeFileSync(config, "limits:\n  maxQueuedMessages: 10000000\n  maxQueuedBytes: 10000000000\n");
  // Each process may live for the whole run; the helper's own bound only catches a leak.
  const drainMs = waitLimit(options.drainMs ?? WAIT_LIMIT_MS);
  const lifetime = kills * (options.gapMs[1] + WAIT_LIMIT_MS) + options.tailMs + 2 * drainMs + 120_000;
  // The first process binds a port of its own; every restart takes that port again.
  const first = await startBrokerOnAnyPort(dataDir, ["--config", config], lifetime);
  const port = first.port;
  const url = `mqtt://127.0.0.1:${String(port)}`;
  const start = (): Promise<ChildProcess> => startBroker(port, dataDir, ["--config", config], lifetime);
  let broker = first.child;
  const connacks = new Connacks();
  const clients: MqttClient[] = [];
  const problems: string[] = [];
  let killed = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    const online = Array.from({ length: options.online ?? 3 }, (_, i) => new LoadSubscriber(`sub-${String(i)}`, qos));
    const offline = Array.from({ length: options.offline ?? 2 }, (_, i) => new LoadSubscriber(`away-${String(i)}`, qos));
    for (const s of [...online, ...offline]) {
      await s.connect(url, connacks);
      if (s.client === undefined) throw new Error("not connected");
      clients.push(s.client);
      await s.client.subscribeAsync(`${TOPIC}/#`, { qos });
    }
    for (const s of offline) {
      await s.client?.endAsync();
      s.client = undefined;
    }
    const window = options.window ?? 10;
    const publishers = Array.from({ length: options.publishers ?? 3 }, (_, i) => new LoadPublisher(`pub-${String(i)}`, qos, window, url, connacks));
    for (const p of publishers) {
      clients.push(p.client);
      await new Promise<void>((resolve) => p.client.once("connect", () => { resolve(); }));
    }
    const acked = (): number => publishers.reduce((n, p) => n + p.acknowledged.length, 0);
    let publishing = true;
    const rate = options.rate ?? 100;
    // Every 10 ms each publisher sends what the rate owes since the last turn, as far as its window
    // lets it; what the window holds back is not made up later (a paused producer, not a burst).
    let last = Date.now();
    timer = setInterval(() => {
      if (!publishing) return;
      const now = Date.now();
      const owed = Math.max(1, Math.round(((now - last) * rate) / 1000));
      last = now;
      for (const p of publishers) for (let i = 0; i < owed && p.tick(); i++);
    }, 10);

    for (let k = 0; k < kills; k++) {
      const [low, high] = options.gapMs;
      const gap = low + random() * (high - low);
      const downtime = random() * 500;
      const lifeStart = Date.now();
      const ackedAtStart = acked();
      await sleep(gap);
      // A kill must land in traffic: on a loaded machine a restart can take most of the gap.
      if (!(await until(() => acked() > ackedAtStart, WAIT_LIMIT_MS))) {
        problems.push(`life ${String(k + 1)}: no acknowledgement within ${String(WAIT_LIMIT_MS)} ms of its start`);
        break;
      }
      log(`kill ${String(k + 1)}/${String(kills)} after ${String(Math.round(Date.now() - lifeStart))} ms of life (acked so far ${String(acked())}); down ${String(Math.round(downtime))} ms`);
      await kill(broker);
      killed += 1;
      await sleep(downtime);
      broker = await start();
    }
    await sleep(options.tailMs);
    publishing = false;
    clearInterval(timer);
    timer = undefined;
    if (!(await until(() => publishers.every((p) => p.outstanding === 0), drainMs))) {
      problems.push(`publishers still wait for ${String(publishers.reduce((n, p) => n + p.outstanding, 0))} acknowledgements`);
    }
    for (const s of offline) {
      await s.connect(url, connacks);
      if (s.client !== undefined) clients.push(s.client);
    }
    const subscribers = [...online, ...offline];
    const owed = publishers.flatMap((p) => p.owed);
    const drained = await until(
      () => subscribers.every((s) => {
        const have = new Set(s.got.map((g) => g.payload));
        return owed.every((payload) => have.has(payload));
      }),
      drainMs,
    );
    if (!drained) log("not every subscriber has every acknowledged message at the drain deadline");
    await sleep(500); // late repeats would show now
    for (const p of publishers) for (const r of p.refused) problems.push(`${p.id} publish failed: ${r}`);
    for (const s of subscribers) {
      if (connacks.count(s.id) < 2) problems.push(`${s.id} connected only ${String(connacks.count(s.id))} time(s)`);
    }
    const violations = [
      ...problems,
      ...connacks.violations(),
      ...deliveryViolations(publishers.map((p) => p.published), subscribers.map((s) => s.received)),
    ];
    const delivered = subscribers.reduce((n, s) => n + s.got.length, 0);
    const distinct = subscribers.reduce((n, s) => n + new Set(s.got.map((g) => g.payload)).size, 0);
    return {
      seed,
      qos,
      kills: killed,
      published: publishers.reduce((n, p) => n + p.next, 0),
      acknowledged: acked(),
      recovered: publishers.reduce((n, p) => n + p.recovered, 0),
      delivered,
      repeats: delivered - distinct,
      elapsedMs: Date.now() - started,
      violations,
    };
  } finally {
    if (timer !== undefined) clearInterval(timer);
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await kill(broker);
    rmSync(root, { recursive: true, force: true });
  }
}
