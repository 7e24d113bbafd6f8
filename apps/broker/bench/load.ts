/**
 * The load generator: fan-in and fan-out traffic over raw sockets (see client.ts), measured over a
 * fixed window after a warm-up. Every phase has a deadline, so a broker that stalls yields a
 * "stalled"/"failed" result instead of a hang.
 * @module
 */
import { performance } from "node:perf_hooks";
import { preparePublish, type PublishTemplate } from "@handoff/mqtt-router/codec";
import { closeAll, openMany, type BenchClient } from "./client.js";
import { LatencyReservoir, readStamp, writeStamp } from "./latency.js";

/** One traffic shape. */
export interface Scenario {
  readonly name: string;
  readonly publishers: number;
  readonly subscribers: number;
  readonly qos: 0 | 1;
  /** Topic of publisher `i`. */
  readonly topic: (i: number) => string;
  /** What every subscriber subscribes to. */
  readonly filter: string;
  /** Messages a publisher keeps outstanding (sent, not yet received by every subscriber). */
  readonly window: number;
}

/** The four scenarios every broker runs. */
export const SCENARIOS: readonly Scenario[] = [
  { name: "fan-in QoS 0 (100 pub -> 1 sub, bench/+/data)", publishers: 100, subscribers: 1, qos: 0, topic: (i) => `bench/${i}/data`, filter: "bench/+/data", window: 8 },
  { name: "fan-in QoS 1 (100 pub -> 1 sub, bench/+/data)", publishers: 100, subscribers: 1, qos: 1, topic: (i) => `bench/${i}/data`, filter: "bench/+/data", window: 8 },
  { name: "fan-out QoS 0 (1 pub -> 1000 sub)", publishers: 1, subscribers: 1000, qos: 0, topic: () => "bench/fanout/data", filter: "bench/fanout/data", window: 8 },
  { name: "fan-out QoS 1 (1 pub -> 1000 sub)", publishers: 1, subscribers: 1000, qos: 1, topic: () => "bench/fanout/data", filter: "bench/fanout/data", window: 8 },
];

/** Durations of one run. */
export interface Timing {
  readonly warmupMs: number;
  readonly measureMs: number;
  /** Deadline for connecting and subscribing every client. */
  readonly setupMs: number;
}

/** What one scenario measured against one broker. */
export interface ScenarioResult {
  readonly status: "ok" | "stalled" | "failed";
  readonly detail: string | undefined;
  /** PUBLISHes sent by the publishers per second. */
  readonly sentPerSec: number;
  /** PUBLISHes received by all subscribers per second. */
  readonly deliveredPerSec: number;
  /** Delivered / (sent x subscribers) over the window: below 1 means drops or a backlog. */
  readonly deliveredRatio: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  /** Broker CPU over the window as a share of one core, when the broker is a child process. */
  readonly brokerCpu: number | undefined;
  /** The generator's own CPU over the window, as a share of one core (it is single-threaded). */
  readonly generatorCpu: number;
}

/** Reads a broker's CPU seconds (user + system) so far; undefined when unknown. */
export type CpuProbe = () => number | undefined;

const PAYLOAD_BYTES = 64;

function template(topic: string, qos: 0 | 1): PublishTemplate {
  const payload = new Uint8Array(PAYLOAD_BYTES);
  const r = qos === 0
    ? preparePublish({ type: "publish", qos: 0, retain: false, dup: false, topic, payload, properties: {} }, 4)
    : preparePublish({ type: "publish", qos: 1, retain: false, dup: false, topic, packetId: 1, payload, properties: {} }, 4);
  if (!r.ok) throw r.error;
  return r.template;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function failed(detail: string): ScenarioResult {
  return { status: "failed", detail, sentPerSec: 0, deliveredPerSec: 0, deliveredRatio: 0, p50Ms: undefined, p99Ms: undefined, brokerCpu: undefined, generatorCpu: 0 };
}

/** Runs one scenario against the broker on `port`; always closes its clients. */
export async function runScenario(port: number, scenario: Scenario, timing: Timing, cpu: CpuProbe): Promise<ScenarioResult> {
  const all: BenchClient[] = [];
  try {
    return await drive(port, scenario, timing, cpu, all);
  } catch (err) {
    return failed(err instanceof Error ? err.message : String(err));
  } finally {
    await closeAll(all, 1000);
  }
}

async function drive(port: number, s: Scenario, timing: Timing, cpu: CpuProbe, all: BenchClient[]): Promise<ScenarioResult> {
  const setupDeadline = performance.now() + timing.setupMs;
  const subs = await openMany(port, s.subscribers, "sub-", 100, timing.setupMs);
  all.push(...subs.clients);
  if (subs.error !== undefined) return failed(`subscriber ${subs.clients.length}/${s.subscribers} failed to connect: ${subs.error}`);
  for (let i = 0; i < subs.clients.length; i += 100) {
    const left = Math.max(1, setupDeadline - performance.now());
    await Promise.all(subs.clients.slice(i, i + 100).map((c) => c.subscribe(s.filter, s.qos, left)));
  }
  const pubs = await openMany(port, s.publishers, "pub-", 100, Math.max(1, setupDeadline - performance.now()));
  all.push(...pubs.clients);
  if (pubs.error !== undefined) return failed(`publisher ${pubs.clients.length}/${s.publishers} failed to connect: ${pubs.error}`);

  let measuring = false;
  let running = true;
  let sent = 0;
  let delivered = 0;
  let expired = 0;
  let lastDelivery = 0;
  let longestGap = 0;
  const latency = new LatencyReservoir();
  const senders = pubs.clients.map((pub, i) => new Sender(pub, i, template(s.topic(i), s.qos), s.subscribers));

  for (const sub of subs.clients) {
    sub.listen({
      onPublish: (payload) => {
        const now = performance.now();
        const stamp = readStamp(payload);
        const from = payload.length >= 16 ? senders[readU32(payload, 8)] : undefined;
        const complete = from?.received(readU32(payload, 12)) ?? false;
        if (measuring) {
          delivered++;
          longestGap = Math.max(longestGap, now - lastDelivery);
          lastDelivery = now;
          if (stamp !== undefined) latency.add(now - stamp);
        }
        if (complete && running && from !== undefined) owe(from);
      },
    });
  }
  // Credit that comes back while reading is spent once per event-loop turn, so a publisher
  // writes its next messages in one syscall instead of one per message.
  const owed = new Map<Sender, number>();
  let flushing = false;
  const owe = (sender: Sender, n = 1): void => {
    owed.set(sender, (owed.get(sender) ?? 0) + n);
    if (flushing) return;
    flushing = true;
    setImmediate(() => {
      flushing = false;
      for (const [sender, n] of owed) sent += sender.send(n, measuring);
      owed.clear();
    });
  };
  for (const sender of senders) owe(sender, s.window);
  // A QoS 0 message the broker dropped never completes: after a second without progress its
  // credit comes back, so a dropping broker slows down instead of stalling the run.
  const refill = setInterval(() => {
    const now = performance.now();
    for (const sender of senders) {
      if (!running) return;
      const gone = sender.expire(now, 1000);
      if (gone > 0) {
        if (measuring) expired += gone;
        owe(sender, gone);
      }
    }
  }, 250);

  await sleep(timing.warmupMs);
  const cpu0 = cpu();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  measuring = true;
  lastDelivery = t0;
  await sleep(timing.measureMs);
  measuring = false;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = cpu();
  const own = process.cpuUsage(own0);
  running = false;
  clearInterval(refill);
  longestGap = Math.max(longestGap, performance.now() - lastDelivery);

  const [p50, p99] = latency.quantiles([0.5, 0.99]);
  const lost = [...subs.clients, ...pubs.clients].filter((c) => c.socket.destroyed).length;
  const notes: string[] = [];
  if (lost > 0) notes.push(`${lost} client(s) disconnected by the broker during the run (${[...subs.clients, ...pubs.clients].find((c) => c.socket.destroyed)?.failure ?? "?"})`);
  const late = senders.reduce((n, x) => n + x.late, 0);
  if (expired > 0) notes.push(`${expired} message(s) not delivered to every subscriber within 1 s of the last progress (${late} delivered late or twice)`);
  if (longestGap > 1000 && delivered > 0) notes.push(`deliveries paused for ${(longestGap / 1000).toFixed(1)} s`);
  return {
    status: delivered === 0 || longestGap > 1000 ? "stalled" : "ok",
    detail: notes.length === 0 ? undefined : notes.join("; "),
    sentPerSec: sent / elapsed,
    deliveredPerSec: delivered / elapsed,
    deliveredRatio: sent === 0 ? 0 : delivered / (sent * s.subscribers),
    p50Ms: p50,
    p99Ms: p99,
    generatorCpu: (own.user + own.system) / 1e6 / elapsed,
    brokerCpu: cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / elapsed,
  };
}

function readU32(buf: Uint8Array, at: number): number {
  return (((buf[at] ?? 0) << 24) | ((buf[at + 1] ?? 0) << 16) | ((buf[at + 2] ?? 0) << 8) | (buf[at + 3] ?? 0)) >>> 0;
}

function writeU32(buf: Uint8Array, at: number, v: number): void {
  buf[at] = v >>> 24;
  buf[at + 1] = (v >>> 16) & 0xff;
  buf[at + 2] = (v >>> 8) & 0xff;
  buf[at + 3] = v & 0xff;
}

/**
 * One publisher with end-to-end credit: a message stays outstanding until every subscriber got
 * it, and only `window` messages may be outstanding. This finds the throughput the broker
 * sustains without letting queues grow without bound (an open-loop flood would measure the
 * depth of socket buffers, not the broker). Payload: stamp (8 bytes), publisher index, sequence.
 */
class Sender {
  readonly #client: BenchClient;
  readonly #index: number;
  readonly #template: PublishTemplate;
  readonly #payloadAt: number;
  readonly #fanout: number;
  /** Outstanding sequence numbers, with the deliveries each still waits for. */
  readonly #pending = new Map<number, number>();
  #seq = 0;
  #packetId = 0;
  #progress = performance.now();

  constructor(client: BenchClient, index: number, t: PublishTemplate, fanout: number) {
    this.#client = client;
    this.#index = index;
    this.#template = t;
    this.#payloadAt = t.bytes.length - PAYLOAD_BYTES;
    this.#fanout = fanout;
  }

  /** Sends `n` messages in one write; returns how many to count as sent (0 while not measuring). */
  send(n: number, counted: boolean): number {
    if (n <= 0 || this.#client.socket.destroyed) return 0;
    const t = this.#template;
    const len = t.bytes.length;
    const buf = Buffer.allocUnsafe(len * n);
    const now = performance.now();
    for (let k = 0; k < n; k++) {
      const at = k * len;
      if (t.qos === 0) {
        buf.set(t.bytes, at);
      } else {
        this.#packetId = this.#packetId === 0xffff ? 1 : this.#packetId + 1;
        buf.set(t.withPacketId(this.#packetId), at);
      }
      const seq = this.#seq;
      this.#seq = (this.#seq + 1) >>> 0;
      writeStamp(buf, at + this.#payloadAt, now);
      writeU32(buf, at + this.#payloadAt + 8, this.#index);
      writeU32(buf, at + this.#payloadAt + 12, seq);
      this.#pending.set(seq, this.#fanout);
    }
    this.#client.socket.write(buf);
    return counted ? n : 0;
  }

  /** Deliveries of messages no longer outstanding: after their expiry, or duplicates. */
  late = 0;

  /** One delivery of `seq`; true when that completed it (every subscriber has it). */
  received(seq: number): boolean {
    const left = this.#pending.get(seq);
    if (left === undefined) {
      this.late++;
      return false;
    }
    this.#progress = performance.now();
    if (left > 1) {
      this.#pending.set(seq, left - 1);
      return false;
    }
    this.#pending.delete(seq);
    return true;
  }

  /** Gives up on outstanding messages after `afterMs` without any delivery; returns how many. */
  expire(now: number, afterMs: number): number {
    if (this.#pending.size === 0 || now - this.#progress < afterMs) return 0;
    const n = this.#pending.size;
    this.#pending.clear();
    this.#progress = now;
    return n;
  }
}
