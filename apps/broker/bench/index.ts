// The broker's end-to-end benchmarks. Run from apps/broker:
//   ../../node_modules/.bin/tsx --conditions=@handoff/source bench/index.ts
// Load (fan-in, fan-out; QoS 0 and 1), an overload probe and idle-connection memory against handoff, aedes and
// mosquitto (when installed), each broker a child process; then the storage bench if present, and
// the in-process handler fan-out bench (the commit barrier's cost per delivery).
import { existsSync, readFileSync } from "node:fs";
import { runBurst, type BurstResult } from "./burst.js";
import { benchHandlerFanout } from "./handler-fanout.js";
import { cpus } from "node:os";
import { SCENARIOS, runScenario, type ScenarioResult, type Timing } from "./load.js";
import { measureIdleConnections, type MemoryResult } from "./memory.js";
import { startNullBroker } from "./null-broker.js";
import { printBurst, printMemory, printScenario } from "./report.js";
import { aedes, handoff, mosquitto, which, type Target, type TargetKind } from "./targets.js";

const TIMING: Timing = { warmupMs: 1000, measureMs: 3000, setupMs: 20_000 };
const IDLE_CONNECTIONS = 10_000;
const BURST = { subscribers: 1000, floodMs: 2000, recoverMs: 15_000 };
/** Hard stop for the whole load + memory part: a hang becomes a failure, not a stuck terminal. */
const DEADLINE_MS = 240_000;

function openFileLimit(): number | undefined {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"));
  if (m?.[1] === undefined) return undefined;
  return m[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(m[1]);
}

const running = new Set<Target>();
const stopAll = async (): Promise<void> => {
  await Promise.all([...running].map((t) => t.stop()));
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}
const watchdog = setTimeout(() => {
  console.error(`\nbench: still running after ${DEADLINE_MS / 1000} s; stopping the brokers and giving up`);
  void stopAll().finally(() => process.exit(1));
}, DEADLINE_MS);
watchdog.unref();

// Appends the broker's own count of dropped copies (by reason) during the scenario.
function withDrops(result: ScenarioResult, before: ReadonlyMap<string, number> | undefined, after: ReadonlyMap<string, number> | undefined): ScenarioResult {
  if (before === undefined || after === undefined) return result;
  const counted = [...after].map(([reason, n]) => [reason, n - (before.get(reason) ?? 0)] as const).filter(([, n]) => n > 0);
  if (counted.length === 0) return result;
  const note = `broker counted drops: ${counted.map(([reason, n]) => `${reason} ${n}`).join(", ")}`;
  return { ...result, detail: result.detail === undefined ? note : `${result.detail}; ${note}` };
}

async function withTarget<T>(kind: TargetKind, use: (t: Target) => Promise<T>): Promise<T> {
  const target = await kind.start();
  running.add(target);
  try {
    return await use(target);
  } finally {
    const died = target.exited();
    await target.stop();
    running.delete(target);
    if (died !== undefined) console.log(`  ! ${kind.name} exited on its own during the run (${died})`);
    for (const [msg, count] of target.warnings) console.log(`  ! ${kind.name} logged "${msg}" x${count}`);
  }
}

const mosquittoPath = which("mosquitto");
const kinds: TargetKind[] = [handoff, aedes, ...(mosquittoPath === undefined ? [] : [mosquitto(mosquittoPath)])];
const fdLimit = openFileLimit();
const idleCount = fdLimit === undefined ? IDLE_CONNECTIONS : Math.min(IDLE_CONNECTIONS, fdLimit - 200);

console.log(`broker end-to-end bench: node ${process.version}, ${cpus().length} CPU(s), open-file limit ${String(fdLimit ?? "?")}`);
console.log(`window: ${TIMING.warmupMs} ms warm-up + ${TIMING.measureMs} ms measured; 64-byte payloads; MQTT 3.1.1 everywhere`);
console.log("delivered % = deliveries / (sends x subscribers) inside the window; the edges add +-(window x subscribers)");
console.log("load is closed-loop: each publisher keeps a fixed number of messages outstanding until every subscriber has them");
console.log(mosquittoPath === undefined ? "mosquitto: skipped (no mosquitto binary on PATH)" : `mosquitto: ${mosquittoPath}`);
if (idleCount < IDLE_CONNECTIONS) console.log(`memory run limited to ${idleCount} connections by the open-file limit (ulimit -n)`);

// results[scenario][broker]
const results = SCENARIOS.map(() => [] as { broker: string; result: ScenarioResult }[]);
const bursts: { broker: string; result: BurstResult }[] = [];
const nullBroker = await startNullBroker();
try {
  for (const [i, s] of SCENARIOS.entries()) {
    process.stdout.write(`  null broker: ${s.name}...\n`);
    results[i]?.push({ broker: "null (generator ceiling)", result: await runScenario(nullBroker.port, s, TIMING, () => undefined) });
  }
} finally {
  await nullBroker.stop();
}
for (const kind of kinds) {
  try {
    await withTarget(kind, async (t) => {
      for (const [i, s] of SCENARIOS.entries()) {
        process.stdout.write(`  ${kind.name}: ${s.name}...\n`);
        const before = await t.drops();
        const result = await runScenario(t.port, s, TIMING, () => t.cpuSeconds());
        results[i]?.push({ broker: kind.name, result: withDrops(result, before, await t.drops()) });
        if (t.exited() !== undefined) return;
      }
      process.stdout.write(`  ${kind.name}: QoS 0 flood to ${BURST.subscribers} subscribers...\n`);
      bursts.push({ broker: kind.name, result: await runBurst(t.port, BURST.subscribers, BURST.floodMs, BURST.recoverMs, () => t.rss()) });
    });
  } catch (err) {
    console.log(`  ! ${kind.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
SCENARIOS.forEach((s, i) => {
  printScenario(s.name, results[i] ?? []);
});
printBurst(`Overload: open-loop QoS 0 flood for ${BURST.floodMs / 1000} s to ${BURST.subscribers} subscribers, then time to the next CONNACK`, bursts);

const memory: { broker: string; result: MemoryResult }[] = [];
for (const kind of kinds) {
  try {
    process.stdout.write(`\n  ${kind.name}: ${idleCount} idle connections...`);
    memory.push({ broker: kind.name, result: await withTarget(kind, (t) => measureIdleConnections(t.port, idleCount, () => t.rss(), 1500)) });
  } catch (err) {
    console.log(`  ! ${kind.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
printMemory(memory);
clearTimeout(watchdog);

if (existsSync(new URL("./storage.ts", import.meta.url))) {
  // A non-literal specifier: storage.ts is another engineer's file and may not exist yet.
  const specifier = "./storage.js";
  const { benchStorage } = (await import(specifier)) as { benchStorage: () => Promise<void> };
  await benchStorage();
}
await benchHandlerFanout();
