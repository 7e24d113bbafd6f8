// The cluster bench (issue #19): QoS 1 fan-in, fan-out and latency across the nodes of a cluster
// on Redis, next to one node on SQLite (the default) and one node on Redis. Run from apps/broker:
//   ../../node_modules/.bin/tsx --conditions=@handoff/source bench/cluster.ts
// Needs redis-server (skipped, with a message, without it); Redis runs with AOF and `appendfsync
// always`, the durable setting, as SQLite commits with an fsync. Every broker node and every
// generator (one per role and node) is a child process. With taskset, the nodes and Redis share
// CPU 0 and the generators CPU 1: three nodes on one core say what the cluster's work costs per
// delivery (CPU µs, summed over the nodes and Redis), not what three machines would carry.
//
// Cross-node placement: fan-in's subscriber is on the first node and its 10 publishers on the
// others; fan-out's publisher is on the first node and its 100 subscribers spread over all nodes.
import { writeFileSync, mkdirSync } from "node:fs";
import { cpus } from "node:os";
import { redisInstalled, startRedis, type RedisProcess } from "../src/cluster/redis-process.js";
import { startGenerator, type GeneratorProcess } from "./generator-process.js";
import type { GeneratorJob, GeneratorResult } from "./peers-generator.js";
import { printTable } from "./report.js";
import { cpuOf, droppedCopies, handoffWith, pinBrokers, settleAll, which, type Target, type TargetKind } from "./targets.js";
import { execFileSync } from "node:child_process";

const WARMUP_MS = 1000;
const MEASURE_MS = Number(process.env["BENCH_MEASURE_MS"] ?? 3000);
const taskset = which("taskset");
const pinned = taskset !== undefined && cpus().length >= 2;
if (pinned) pinBrokers(taskset, "0");
const generatorPrefix = pinned ? [taskset, "-c", "1"] : [];

type Publishers = Omit<Extract<GeneratorJob, { role: "publishers" }>, "port" | "version" | "role" | "warmupMs" | "measureMs" | "count">;

/** One row: `subscribers` on the first node or spread; `publishers` on the other nodes or the first. */
interface Scenario {
  readonly key: string;
  readonly label: string;
  readonly subscribers: { readonly count: number; readonly filter: string; readonly spread: boolean };
  readonly publishers: Publishers & { readonly count: number; readonly onOthers: boolean };
  readonly metric: "delivered" | "latency";
}

const SCENARIOS: readonly Scenario[] = [
  {
    key: "fanin-qos1",
    label: "QoS 1 fan-in, 10 publishers flooding -> 1 subscriber (publishers on the other nodes), delivered/s",
    subscribers: { count: 1, filter: "bench/+/data", spread: false },
    publishers: { count: 10, onOthers: true, topicPrefix: "bench/", topicSuffix: "/data", sameTopic: false, qos: 1, window: 64, ratePerSec: undefined },
    metric: "delivered",
  },
  {
    key: "fanout-qos1",
    label: "QoS 1 fan-out, 1 -> 100 subscribers (spread over the nodes), deliveries/s",
    subscribers: { count: 100, filter: "bench/fanout", spread: true },
    publishers: { count: 1, onOthers: false, topicPrefix: "bench/fanout", topicSuffix: "", sameTopic: true, qos: 1, window: 64, ratePerSec: undefined },
    metric: "delivered",
  },
  {
    key: "latency-qos1",
    label: "QoS 1 fan-in at 2k msg/s offered (10 x 200/s -> 1, publishers on the other nodes), p50 / p99 ms",
    subscribers: { count: 1, filter: "bench/+/data", spread: false },
    publishers: { count: 10, onOthers: true, topicPrefix: "bench/", topicSuffix: "/data", sameTopic: false, qos: 1, window: 64, ratePerSec: 200 },
    metric: "latency",
  },
];

/** A deployment under test. */
interface Setup {
  readonly name: string;
  readonly nodes: number;
  readonly storage: "sqlite" | "redis";
}

const ALL_SETUPS: readonly Setup[] = [
  { name: "1 node, SQLite", nodes: 1, storage: "sqlite" },
  { name: "1 node, Redis", nodes: 1, storage: "redis" },
  { name: "3 nodes, Redis", nodes: 3, storage: "redis" },
];

// BENCH_ONLY=fanin-qos1,... picks rows, BENCH_SETUPS="3 nodes, Redis;..." setups (';'-separated).
const only = process.env["BENCH_ONLY"]?.split(",");
const setupNames = process.env["BENCH_SETUPS"]?.split(";");
const SCENARIOS_RUN = SCENARIOS.filter((s) => only === undefined || only.includes(s.key));
const SETUPS = ALL_SETUPS.filter((s) => setupNames === undefined || setupNames.includes(s.name));

interface Row {
  readonly deliveredPerSec: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  /** CPU of the nodes and Redis per delivery, µs. */
  readonly cpuUsPerDelivery: number | undefined;
  readonly lost: number;
  /** Share of one core each node (in order) and Redis (last) used over the window. */
  readonly cpuSplit: readonly number[] | undefined;
  /** Copies the nodes dropped during the row (their own count, by any reason but the generators' sessions ending). */
  readonly drops: number | undefined;
}

// `total` split over `parts` as evenly as can be, larger shares first.
const split = (total: number, parts: number): number[] => Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));

// CPU seconds used so far by each node, in order, and Redis (last).
const cpuByProcess = (nodes: readonly Target[], redis: RedisProcess | undefined): number[] => [...nodes.map((t) => t.cpuSeconds() ?? 0), redis === undefined ? 0 : (cpuOf(redis.pid() ?? 0) ?? 0)];
const sum = (values: readonly number[]): number => values.reduce((n, v) => n + v, 0);

async function run(nodes: readonly Target[], redis: RedisProcess | undefined, s: Scenario): Promise<Row> {
  await settleAll(nodes);
  const dropsBefore = await droppedCopies(nodes);
  const timing = { warmupMs: WARMUP_MS, measureMs: MEASURE_MS, version: 5 as const };
  const [first] = nodes;
  if (first === undefined) throw new Error("no node");
  const subNodes = s.subscribers.spread ? nodes : [first];
  const subs: GeneratorProcess[] = split(s.subscribers.count, subNodes.length).flatMap((count, i) => {
    const node = subNodes[i];
    return node === undefined || count === 0 ? [] : [startGenerator(generatorPrefix, { role: "subscribers", port: node.port, count, filter: s.subscribers.filter, qos: 1, ...timing })];
  });
  await Promise.all(subs.map((g) => g.ready));
  const pubNodes = s.publishers.onOthers && nodes.length > 1 ? nodes.slice(1) : [first];
  const { count: pubCount, onOthers: _onOthers, ...publisher } = s.publishers;
  const pubs: GeneratorProcess[] = split(pubCount, pubNodes.length).flatMap((count, i) => {
    const node = pubNodes[i];
    return node === undefined || count === 0 ? [] : [startGenerator(generatorPrefix, { role: "publishers", port: node.port, count, ...publisher, ...timing })];
  });
  await Promise.all(pubs.map((g) => g.ready));
  let cpu: { start?: number[]; end?: number[] } = {};
  for (const g of [...subs, ...pubs]) g.go();
  const timers = [
    setTimeout(() => (cpu = { ...cpu, start: cpuByProcess(nodes, redis) }), WARMUP_MS),
    setTimeout(() => (cpu = { ...cpu, end: cpuByProcess(nodes, redis) }), WARMUP_MS + MEASURE_MS),
  ];
  const results: GeneratorResult[] = await Promise.all([...subs, ...pubs].map((g) => g.result)).finally(() => {
    for (const t of timers) clearTimeout(t);
  });
  const got = results.slice(0, subs.length);
  const delivered = got.reduce((n, r) => n + r.messages, 0);
  const seconds = Math.max(...got.map((r) => r.seconds));
  const worst = (pick: (r: GeneratorResult) => number | undefined): number | undefined => {
    const values = got.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : Math.max(...values);
  };
  const start = cpu.start;
  const end = cpu.end ?? cpuByProcess(nodes, redis);
  const cpuSeconds = start === undefined ? undefined : sum(end) - sum(start);
  await settleAll(nodes); // what was routed late is counted too
  const dropsAfter = await droppedCopies(nodes);
  // Publishers leave first: no subscriber goes while copies still flow to it.
  await Promise.all(pubs.map((g) => g.close()));
  await Promise.all(subs.map((g) => g.close()));
  return {
    cpuSplit: start === undefined ? undefined : end.map((v, i) => (v - (start[i] ?? 0)) / (MEASURE_MS / 1000)),
    drops: dropsBefore === undefined || dropsAfter === undefined ? undefined : dropsAfter - dropsBefore,
    deliveredPerSec: delivered / seconds,
    p50Ms: worst((r) => r.p50Ms),
    p99Ms: worst((r) => r.p99Ms),
    cpuUsPerDelivery: cpuSeconds === undefined || delivered === 0 ? undefined : (cpuSeconds / delivered) * 1e6,
    lost: results.reduce((n, r) => n + r.lost, 0),
  };
}

async function withSetup<T>(setup: Setup, redis: RedisProcess | undefined, index: number, use: (nodes: readonly Target[]) => Promise<T>): Promise<T> {
  const kinds: TargetKind[] =
    setup.storage === "sqlite"
      ? [handoffWith("sqlite")]
      : Array.from({ length: setup.nodes }, (_, i) => handoffWith("redis", { url: redis?.url ?? "", prefix: `bench${String(index)}:`, nodeId: `n${String(i + 1)}` }));
  const nodes: Target[] = [];
  try {
    for (const kind of kinds) nodes.push(await kind.start());
    return await use(nodes);
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const fixed = (n: number | undefined, digits = 1): string => (n === undefined ? "-" : n.toFixed(digits));

async function main(): Promise<void> {
  console.log(`cluster bench: node ${process.version}, ${String(cpus().length)} CPU(s); ${pinned ? "nodes and Redis on CPU 0, generators on CPU 1" : "not pinned (no taskset or one CPU)"}`);
  console.log(`window: ${String(WARMUP_MS)} ms warm-up + ${String(MEASURE_MS)} ms measured; 64-byte payloads; MQTT 5; Redis with appendfsync always`);
  const redisHere = await redisInstalled();
  if (!redisHere) console.log("redis-server: not installed, so only the SQLite node runs (Debian: apt-get install redis-server)");
  const redis = redisHere ? await startRedis({ appendfsync: "always" }) : undefined;
  const redisPid = redis?.pid();
  if (pinned && redisPid !== undefined) execFileSync(taskset, ["-p", "-c", "0", String(redisPid)], { stdio: "ignore" });
  const setups = SETUPS.filter((s) => s.storage === "sqlite" || redis !== undefined);
  const rows = new Map<string, Map<string, Row>>();
  try {
    for (const [index, setup] of setups.entries()) {
      await withSetup(setup, redis, index, async (nodes) => {
        for (const s of SCENARIOS_RUN) {
          const row = await run(nodes, setup.storage === "redis" ? redis : undefined, s);
          const byScenario = rows.get(s.key) ?? new Map<string, Row>();
          byScenario.set(setup.name, row);
          rows.set(s.key, byScenario);
          console.log(`  ${setup.name}: ${s.key} ${int(row.deliveredPerSec)}/s, p99 ${fixed(row.p99Ms)} ms, ${fixed(row.cpuUsPerDelivery)} CPU µs/delivery, ${String(row.drops ?? "?")} dropped, CPU ${(row.cpuSplit ?? []).map((c) => `${(c * 100).toFixed(0)}%`).join(" / ")} (nodes / Redis)${row.lost > 0 ? `, ${String(row.lost)} clients closed` : ""}`);
        }
      });
    }
  } finally {
    await redis?.stop();
  }
  for (const s of SCENARIOS_RUN) {
    const byScenario = rows.get(s.key);
    if (byScenario === undefined) continue;
    const table = [["setup", s.metric === "latency" ? "p50 ms" : "delivered/s", "p99 ms", "CPU µs/delivery (nodes + Redis)", "dropped"]];
    for (const [name, row] of byScenario) table.push([name, s.metric === "latency" ? fixed(row.p50Ms, 2) : int(row.deliveredPerSec), fixed(row.p99Ms), fixed(row.cpuUsPerDelivery), String(row.drops ?? "-")]);
    printTable(s.label, table);
  }
  const one = rows.get("fanout-qos1")?.get("1 node, Redis")?.cpuUsPerDelivery;
  const three = rows.get("fanout-qos1")?.get("3 nodes, Redis")?.cpuUsPerDelivery;
  if (one !== undefined && three !== undefined) console.log(`\nfan-out CPU per delivery, 3 nodes / 1 node on Redis: x${(three / one).toFixed(2)} (what spreading the subscribers over two more nodes costs)`);
  const results = new URL("./results/", import.meta.url);
  mkdirSync(results, { recursive: true });
  writeFileSync(new URL("cluster-latest.json", results), `${JSON.stringify(Object.fromEntries([...rows].map(([k, v]) => [k, Object.fromEntries(v)])), null, 2)}\n`);
}

await main();
