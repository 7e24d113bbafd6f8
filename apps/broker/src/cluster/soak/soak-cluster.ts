// `pnpm soak:cluster`: the cluster fault suite run by hand (see fault-suite.ts) — three nodes and
// Redis under churn while faults are injected from a seeded schedule; prints a table and the
// violations found, exits 1 if any guarantee broke (2 on bad flags). Flags: see --help.
import { parseArgs } from "node:util";
import { children } from "../../e2e/broker-process.test-helpers.js";
import { pickSeed } from "../../e2e/seeded-random.test-helpers.js";
import { redisInstalled } from "../redis-process.js";
import { ClusterProcesses } from "./cluster-processes.js";
import { durationNeededMs, parseFaultKinds } from "./fault-schedule.js";
import { runFaultSuite } from "./fault-suite.js";
import { formatReport } from "./report-table.js";

const HELP = `Usage: pnpm soak:cluster [-- options]

  --duration <s>       load per run, seconds (default 60; raised to what the faults need)
  --faults <kinds>     comma-separated: node-kill, node-pause, redis-restart, redis-pause, or all (default)
  --only <kind>        the same as --faults <kind>
  --count <n>          faults per run, one at a time (default: one per 12 s of load, at least one per kind)
  --seed <n>           seed of the fault schedule (default: random, printed)
  --runs <n>           repeat the whole thing, seed + 1 each time (default 1)
  --node-timeout <ms>  the nodes' --node-timeout-ms (default 1000)
  --rate <n>           msg/s of each of the two publishers (default 400)
  --details <n>        violations printed in full per kind (default 10)`;

// `pnpm soak:cluster -- --flag` passes the `--` on (pnpm 12); it is not a flag.
const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === "--" ? argv.slice(1) : argv,
  options: {
    duration: { type: "string" },
    faults: { type: "string" },
    only: { type: "string" },
    count: { type: "string" },
    seed: { type: "string" },
    runs: { type: "string" },
    "node-timeout": { type: "string" },
    rate: { type: "string" },
    details: { type: "string" },
    help: { type: "boolean" },
  },
});

function usage(message: string): never {
  process.stderr.write(`soak:cluster: ${message}\n`);
  process.exit(2);
}

function count(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} must be a whole number, got ${JSON.stringify(text)}`);
  return n;
}

async function main(): Promise<number> {
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (!(await redisInstalled())) usage("redis-server is not installed");
  const kinds = parseFaultKinds(values.only ?? values.faults);
  if (typeof kinds === "string") usage(kinds);
  const nodeTimeoutMs = count("node-timeout", values["node-timeout"], 1000);
  const asked = count("duration", values.duration, 60) * 1000;
  const faults = Math.max(kinds.length, count("count", values.count, Math.round(asked / 12_000)));
  const durationMs = Math.max(asked, durationNeededMs(faults, nodeTimeoutMs));
  const runs = Math.max(1, count("runs", values.runs, 1));
  const seed0 = pickSeed(values.seed);
  let failed = 0;
  for (let run = 0; run < runs; run++) {
    const seed = (seed0 + run) >>> 0;
    process.stdout.write(`soak:cluster: seed ${String(seed)}, ${String(faults)} faults (${kinds.join(", ")}) over ${String(durationMs / 1000)} s\n`);
    const report = await runFaultSuite({
      seed,
      durationMs,
      kinds,
      faults,
      nodeTimeoutMs,
      rate: count("rate", values.rate, 400),
      log: (line) => process.stdout.write(`  ${line}\n`),
    });
    process.stdout.write(`${formatReport(report, count("details", values.details, 10))}\n\n`);
    if (report.violations.length > 0) failed += 1;
  }
  if (runs > 1) process.stdout.write(`soak:cluster: ${String(runs)} runs, ${String(failed)} failed\n`);
  return failed === 0 ? 0 : 1;
}

// However this process ends, no broker or Redis it started outlives it; Ctrl-C ends it through
// process.exit so that this runs.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  ClusterProcesses.killAll();
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`soak:cluster: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
