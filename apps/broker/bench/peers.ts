// The peers comparison (issue #22): handoff (SQLite and memory), mosquitto (when installed) and
// aedes side by side on the same generator, in one invocation. Run from apps/broker:
//   ../../node_modules/.bin/tsx --conditions=@handoff/source bench/peers.ts
// Each broker is a child process; the generator runs in further child processes (one per role,
// peers-generator.ts). With `taskset` on PATH the broker is pinned to CPU 0 and the generator to
// CPU 1. Prints a table, writes bench/results/latest.json and compares with bench/baseline.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { closeAll, openMany, type BenchClient } from "./client.js";
import { startGenerator } from "./generator-process.js";
import type { GeneratorJob } from "./peers-generator.js";
import { aedes, cpuOf, droppedCopies, handoffWith, mosquitto, nodeFloor, pinBrokers, settleAll, which, type Target, type TargetKind } from "./targets.js";

// BENCH_MEASURE_MS lengthens the window (for a profile); BENCH_ONLY=fanin-qos1,... and
// BENCH_BROKERS="handoff (memory),..." pick rows and columns; BENCH_PROF=<dir> profiles handoff;
// BENCH_NODE_ARGS="--trace-gc ..." adds node flags to handoff; BENCH_LOG=<file> keeps the brokers'
// output.
const WARMUP_MS = 1000;
const MEASURE_MS = Number(process.env["BENCH_MEASURE_MS"] ?? 3000);
const only = process.env["BENCH_ONLY"]?.split(",");
const brokers = process.env["BENCH_BROKERS"]?.split(",");
const IDLE_CLIENTS = 5000;
const taskset = which("taskset");
const twoCores = cpus().length >= 2;
if (taskset !== undefined && twoCores) pinBrokers(taskset, "0");
const generatorPrefix = taskset !== undefined && twoCores ? [taskset, "-c", "1"] : [];

/** One row of the table. */
interface Scenario {
  readonly key: string;
  readonly label: string;
  readonly subscribers: Omit<Extract<GeneratorJob, { role: "subscribers" }>, "port" | "version" | "role" | "warmupMs" | "measureMs">;
  readonly publishers: Omit<Extract<GeneratorJob, { role: "publishers" }>, "port" | "version" | "role" | "warmupMs" | "measureMs">;
  /** What the row reports. */
  readonly metric: "delivered" | "latency";
}

const ALL_SCENARIOS: readonly Scenario[] = [
  {
    key: "fanin-qos1",
    label: "QoS 1 fan-in, 10 publishers flooding -> 1 wildcard subscriber, delivered/s",
    subscribers: { count: 1, filter: "bench/+/data", qos: 1 },
    publishers: { count: 10, topicPrefix: "bench/", topicSuffix: "/data", sameTopic: false, qos: 1, window: 64, ratePerSec: undefined },
    metric: "delivered",
  },
  // The same flood to a subscriber whose session outlives its connection: what a durable store
  // writes for every message (a clean session's queue ends with the process, so is never written).
  {
    key: "fanin-qos1-persistent",
    label: "QoS 1 fan-in as above, to a persistent session (expiry 300 s; 3.1.1: CleanSession 0), delivered/s",
    subscribers: { count: 1, filter: "bench/+/data", qos: 1, sessionExpiry: 300 },
    publishers: { count: 10, topicPrefix: "bench/", topicSuffix: "/data", sameTopic: false, qos: 1, window: 64, ratePerSec: undefined },
    metric: "delivered",
  },
  {
    key: "fanout-qos1",
    label: "QoS 1 fan-out, 1 -> 100 subscribers, deliveries/s",
    subscribers: { count: 100, filter: "bench/fanout", qos: 1 },
    publishers: { count: 1, topicPrefix: "bench/fanout", topicSuffix: "", sameTopic: true, qos: 1, window: 64, ratePerSec: undefined },
    metric: "delivered",
  },
  {
    key: "latency-qos1-10k",
    label: "QoS 1 fan-in at 10k msg/s offered (10 x 1k/s -> 1), p50 / p99 ms",
    subscribers: { count: 1, filter: "bench/+/data", qos: 1 },
    publishers: { count: 10, topicPrefix: "bench/", topicSuffix: "/data", sameTopic: false, qos: 1, window: 64, ratePerSec: 1000 },
    metric: "latency",
  },
  // Last: a broker that cannot keep up with a QoS 0 flood is still reading it after the row ends.
  {
    key: "fanin-qos0",
    label: "QoS 0 fan-in, 10 -> 1 flooding, delivered/s (offered/s)",
    subscribers: { count: 1, filter: "bench/+/data", qos: 0 },
    publishers: { count: 10, topicPrefix: "bench/", topicSuffix: "/data", sameTopic: false, qos: 0, window: 32, ratePerSec: undefined },
    metric: "delivered",
  },
];

const SCENARIOS = ALL_SCENARIOS.filter((s) => only === undefined || only.includes(s.key));

interface Row {
  readonly deliveredPerSec: number;
  readonly sentPerSec: number;
  readonly ackedPerSec: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly drops: number | undefined;
  readonly note: string | undefined;
  /** Broker CPU (utime + stime) over the measured window, as a share of one core. */
  readonly serverCpu: number | undefined;
  /** Broker CPU per delivery in the window, microseconds: comparable when the machine is loaded. */
  readonly cpuUsPerDelivery: number | undefined;
  /** The generator processes' CPU over the window, as a share of one core (near 100%: generator-bound). */
  readonly generatorCpu: number | undefined;
  /** Deliveries per store commit over the window (handoff with a store only): the group commit's batch. */
  readonly deliveriesPerCommit?: number | undefined;
}

async function run(t: Target, version: 4 | 5, s: Scenario): Promise<Row> {
  await settleAll([t]);
  const timing = { warmupMs: WARMUP_MS, measureMs: MEASURE_MS };
  const before = await droppedCopies([t]);
  const subs = startGenerator(generatorPrefix, { role: "subscribers", port: t.port, version, ...s.subscribers, ...timing });
  await subs.ready;
  const pubs = startGenerator(generatorPrefix, { role: "publishers", port: t.port, version, ...s.publishers, ...timing });
  await pubs.ready;
  // CPU is sampled at the edges of the generators' measured window (they time it themselves, from
  // `go`); the IPC round adds a millisecond or so against a 3 s window.
  const cpu = (): { server: number | undefined; generator: number } => ({ server: t.cpuSeconds(), generator: (cpuOf(subs.pid ?? 0) ?? 0) + (cpuOf(pubs.pid ?? 0) ?? 0) });
  let window: { start?: ReturnType<typeof cpu>; end?: ReturnType<typeof cpu>; t0?: number; t1?: number } = {};
  const commits: { start?: Promise<number | undefined>; end?: Promise<number | undefined> } = {};
  const sample = (edge: "start" | "end", ms: number): NodeJS.Timeout =>
    setTimeout(() => {
      window = edge === "start" ? { ...window, start: cpu(), t0: performance.now() } : { ...window, end: cpu(), t1: performance.now() };
      commits[edge] = t.commits();
    }, ms);
  subs.go();
  pubs.go();
  const timers = [sample("start", WARMUP_MS), sample("end", WARMUP_MS + MEASURE_MS)];
  const [sub, pub] = await Promise.all([subs.result, pubs.result]).finally(() => {
    for (const x of timers) clearTimeout(x);
  });
  // On a loaded machine this process's timer can fire after the generators reported: sample now.
  const { start } = window;
  const end = window.end ?? cpu();
  const seconds = ((window.t1 ?? performance.now()) - (window.t0 ?? 0)) / 1000;
  const serverCpuS = start?.server === undefined || end.server === undefined ? undefined : end.server - start.server;
  // Read while every client is still connected (publishers stopped): a drop counted now happened
  // to a subscriber that was reading. Then the publishers go, then the subscribers.
  const after = await droppedCopies([t]);
  await pubs.close();
  await subs.close();
  await new Promise((resolve) => setTimeout(resolve, 300)); // let the broker see the clients go
  const lost = sub.lost + pub.lost;
  const [c0, c1] = await Promise.all([commits.start, commits.end]);
  return {
    deliveredPerSec: sub.messages / sub.seconds,
    sentPerSec: pub.messages / pub.seconds,
    ackedPerSec: pub.acked / pub.seconds,
    p50Ms: sub.p50Ms,
    p99Ms: sub.p99Ms,
    drops: before === undefined || after === undefined ? undefined : after - before,
    note: lost > 0 ? `${String(lost)} client(s) closed by the broker` : undefined,
    serverCpu: serverCpuS === undefined || seconds <= 0 ? undefined : serverCpuS / seconds,
    cpuUsPerDelivery: serverCpuS === undefined || sub.messages === 0 ? undefined : (serverCpuS / sub.messages) * 1e6,
    generatorCpu: start === undefined || seconds <= 0 ? undefined : (end.generator - start.generator) / seconds,
    deliveriesPerCommit: c0 === undefined || c1 === undefined || c1 <= c0 ? undefined : sub.messages / (c1 - c0),
  };
}

interface Memory {
  /** RSS growth over all the clients, per client. */
  readonly perClientBytes: number;
  /**
   * RSS growth per client over the second half only. A Node broker's young generation grows
   * from 1 to 16 MiB per semi-space under the first connections' garbage, which the average
   * spreads over the clients (3.7 KiB each at 5,000 with --max-semi-space-size=1 against 16); the
   * second half shows what one more client costs.
   */
  readonly marginalBytes: number;
  readonly idleRssBytes: number;
}

// RSS per connected and subscribed idle client, opened in two halves.
async function memoryPerClient(t: Target, count: number): Promise<Memory | string> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idle = t.rss() ?? 0;
  const clients: BenchClient[] = [];
  try {
    const halves = [Math.floor(count / 2), count - Math.floor(count / 2)] as const;
    const marks: number[] = [];
    for (const [half, n] of halves.entries()) {
      const opened = await openMany(t.port, n, `idle-${String(half)}-`, 250, 20_000);
      clients.push(...opened.clients);
      if (opened.error !== undefined) return `only ${String(clients.length)} connected: ${opened.error}`;
      const own = opened.clients;
      for (let i = 0; i < own.length; i += 250) await Promise.all(own.slice(i, i + 250).map((c, k) => c.subscribe(`idle/${String(half)}/${String(i + k)}/#`, 1, 20_000)));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      marks.push(t.rss() ?? 0);
    }
    const [first = idle, loaded = idle] = marks;
    return { perClientBytes: (loaded - idle) / count, marginalBytes: (loaded - first) / halves[1], idleRssBytes: idle };
  } finally {
    await closeAll(clients, 3000);
  }
}

const mosquittoPath = which("mosquitto");
const allKinds: { kind: TargetKind; version: 4 | 5 }[] = [
  { kind: handoffWith("sqlite"), version: 5 },
  { kind: handoffWith("memory"), version: 5 },
  ...(mosquittoPath === undefined ? [] : [{ kind: mosquitto(mosquittoPath), version: 5 as const }]),
  { kind: aedes, version: 4 },
];
const kinds = allKinds.filter(({ kind }) => brokers === undefined || brokers.includes(kind.name));
console.log(`peers bench: node ${process.version}, ${String(cpus().length)} CPU(s); ${String(WARMUP_MS)} ms warm-up + ${String(MEASURE_MS)} ms measured per row; 64-byte payloads`);
console.log(taskset !== undefined && twoCores ? "broker pinned to CPU 0, generator processes to CPU 1 (taskset)" : "no taskset (or one CPU): broker and generator not pinned");
console.log(mosquittoPath === undefined ? "mosquitto: skipped, not installed (Debian: apt-get install mosquitto)" : `mosquitto: ${mosquittoPath}`);
console.log("MQTT 5 for handoff and mosquitto, 3.1.1 for aedes (it speaks nothing newer); the machine may be shared: figures are noisy\n");

const results: Record<string, Record<string, Row | string>> = {};
const memory: Record<string, Memory | string> = {};
// Every row, and the memory measurement, on a broker process of its own: after the load rows the
// heap has grown and the clients' share of RSS read low (0.1 KiB per client), and a broker that
// dies in one row (aedes did, after fan-in) no longer fails the rows after it.
async function onFresh<T>(kind: TargetKind, use: (t: Target) => Promise<T>): Promise<T | string> {
  let target: Target | undefined;
  try {
    target = await kind.start();
    const result = await use(target);
    const died = target.exited();
    return died === undefined ? result : `${kind.name} exited during the row (${died})`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await target?.stop();
  }
}

// The memory row's reference: what a client costs a process that does nothing but hold it.
process.stdout.write(`  ${nodeFloor.name}: ${String(IDLE_CLIENTS)} idle subscribed clients...\n`);
const floor = await onFresh(nodeFloor, (t) => memoryPerClient(t, IDLE_CLIENTS));
for (const { kind, version } of kinds) {
  process.stdout.write(`  ${kind.name}: ${String(IDLE_CLIENTS)} idle subscribed clients...\n`);
  memory[kind.name] = await onFresh(kind, (t) => memoryPerClient(t, IDLE_CLIENTS));
  for (const s of SCENARIOS) {
    process.stdout.write(`  ${kind.name}: ${s.key}...\n`);
    (results[s.key] ??= {})[kind.name] = await onFresh(kind, (t) => run(t, version, s));
  }
}

const k = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0));
const names = kinds.map((x) => x.kind.name);
const cell = (s: Scenario, r: Row | string | undefined): string => {
  if (r === undefined) return "-";
  if (typeof r === "string") return `failed: ${r}`;
  // Fan-in QoS 1 must drop nothing (#22): its cell always says so where the broker counts drops.
  const fanin = s.key.startsWith("fanin-qos1");
  const drops = r.drops !== undefined && (r.drops > 0 || fanin) ? ` (${String(r.drops)} dropped)` : "";
  if (s.metric === "latency") return `${r.p50Ms?.toFixed(1) ?? "?"} / ${r.p99Ms?.toFixed(1) ?? "?"}${drops}`;
  const extra = s.key === "fanin-qos0" ? ` (${k(r.sentPerSec)})` : fanin ? ` (${k(r.ackedPerSec)} acked)` : "";
  return `${k(r.deliveredPerSec)}${extra}${drops}${r.note === undefined ? "" : ` [${r.note}]`}`;
};
console.log(`\n| scenario | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---").join("|")}|`);
for (const s of SCENARIOS) console.log(`| ${s.label} | ${names.map((n) => cell(s, results[s.key]?.[n])).join(" | ")} |`);
const memoryCell = (m: Memory | string | undefined): string => {
  const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
  return m === undefined ? "-" : typeof m === "string" ? m : `${kib(m.perClientBytes)} KiB (second half ${kib(m.marginalBytes)} KiB; idle RSS ${(m.idleRssBytes / 1048576).toFixed(0)} MiB)`;
};
console.log(`| RSS per connected + subscribed idle client (${String(IDLE_CLIENTS)} clients) | ${names.map((n) => memoryCell(memory[n])).join(" | ")} |`);
console.log(`\nThe same clients held by a bare node:net server answering with the least MQTT (the null broker, a process of its own): ${memoryCell(floor)}`);

console.log("\nBroker CPU per delivery over the measured window, µs (broker CPU share of one core; generator processes' CPU share; deliveries per store commit):");
console.log(`| scenario | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---").join("|")}|`);
const pct = (x: number | undefined): string => (x === undefined ? "?" : `${(x * 100).toFixed(0)}%`);
for (const s of SCENARIOS) {
  const cells = names.map((n) => {
    const r = results[s.key]?.[n];
    if (r === undefined || typeof r === "string") return "-";
    const batch = r.deliveriesPerCommit === undefined ? "" : `; ${r.deliveriesPerCommit.toFixed(0)}/commit`;
    return `${r.cpuUsPerDelivery?.toFixed(1) ?? "?"} (${pct(r.serverCpu)}; gen ${pct(r.generatorCpu)}${batch})`;
  });
  console.log(`| ${s.key} | ${cells.join(" | ")} |`);
}

const report = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, pinned: taskset !== undefined && twoCores, results, memory, nodeFloorMemory: floor };
const resultsDir = new URL("./results/", import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(new URL("latest.json", resultsDir), `${JSON.stringify(report, null, 2)}\n`);
console.log("\nwritten: bench/results/latest.json");
const baselineUrl = new URL("./baseline.json", import.meta.url);
if (existsSync(baselineUrl)) {
  const baseline = JSON.parse(readFileSync(baselineUrl, "utf8")) as typeof report;
  console.log(`against bench/baseline.json (${baseline.date}), delivered/s now / then:`);
  for (const s of SCENARIOS) {
    if (s.metric !== "delivered") continue;
    const parts = names.map((n) => {
      const now = results[s.key]?.[n];
      const then = baseline.results[s.key]?.[n];
      return typeof now === "object" && typeof then === "object" && then.deliveredPerSec > 0 ? `${n} ${(now.deliveredPerSec / then.deliveredPerSec).toFixed(2)}x` : `${n} -`;
    });
    console.log(`  ${s.key}: ${parts.join(", ")}`);
  }
  console.log("broker CPU µs per delivery now / then (lower is better; baselines without it show -):");
  for (const s of SCENARIOS) {
    const parts = names.map((n) => {
      const now = results[s.key]?.[n];
      const then = baseline.results[s.key]?.[n];
      const a = typeof now === "object" ? now.cpuUsPerDelivery : undefined;
      const b = typeof then === "object" ? then.cpuUsPerDelivery : undefined;
      return a !== undefined && b !== undefined && b > 0 ? `${n} ${(a / b).toFixed(2)}x` : `${n} -`;
    });
    console.log(`  ${s.key}: ${parts.join(", ")}`);
  }
}
