// `pnpm soak`: the crash loop of crash-loop.test.ts run by hand, for longer — a broker process
// SIGKILLed again and again under QoS 1/2 load, restarted on the same data directory, and every
// acknowledged message checked at the end. Exits 1 if any guarantee broke. Flags: see --help.
import { parseArgs } from "node:util";
import { children } from "./broker-process.test-helpers.js";
import { runCrashLoop, type CrashLoopReport } from "./crash-loop.test-helpers.js";
import { pickSeed } from "./seeded-random.test-helpers.js";

const HELP = `Usage: pnpm soak [-- options]

  --duration <s>     load per run, seconds (default 120)
  --kills <n>        SIGKILLs per run (default: one per 4 s of load)
  --seed <n>         seed of the kill schedule (default: random, printed)
  --qos <1|2|both>   QoS of the runs (default both: a QoS 2 run, then a QoS 1 run)
  --runs <n>         repeat the whole thing, seed + 1 each time (default 1)
  --publishers <n>   default 3, each at --rate msg/s (default 100) with --window in flight (default 10)
  --online <n>       subscribers online throughout (default 3)
  --offline <n>      subscribers that drain at the end (default 2)`;

// `pnpm soak -- --flag` passes the `--` on (pnpm 12); it is not a flag.
const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === "--" ? argv.slice(1) : argv,
  options: {
    duration: { type: "string" },
    kills: { type: "string" },
    seed: { type: "string" },
    qos: { type: "string" },
    runs: { type: "string" },
    publishers: { type: "string" },
    rate: { type: "string" },
    window: { type: "string" },
    online: { type: "string" },
    offline: { type: "string" },
    help: { type: "boolean" },
  },
});

function count(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`soak: --${name} must be a whole number, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<number> {
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const durationMs = count("duration", values.duration, 120) * 1000;
  const kills = Math.max(1, count("kills", values.kills, Math.round(durationMs / 4000)));
  const qosList: readonly (1 | 2)[] = values.qos === "1" ? [1] : values.qos === "2" ? [2] : [2, 1];
  const runs = count("runs", values.runs, 1);
  const gap = durationMs / kills;
  const seed0 = pickSeed(values.seed);
  const reports: CrashLoopReport[] = [];
  for (let run = 0; run < runs; run++) {
    for (const qos of qosList) {
      const seed = (seed0 + run) >>> 0;
      process.stdout.write(`soak: QoS ${String(qos)}, seed ${String(seed)}, ${String(kills)} kills over ${String(durationMs / 1000)} s\n`);
      const report = await runCrashLoop({
        qos,
        seed,
        kills,
        gapMs: [gap * 0.75, gap * 1.25],
        tailMs: 2000,
        publishers: count("publishers", values.publishers, 3),
        rate: count("rate", values.rate, 100),
        window: count("window", values.window, 10),
        online: count("online", values.online, 3),
        offline: count("offline", values.offline, 2),
        drainMs: 120_000,
        log: (line) => process.stdout.write(`  ${line}\n`),
      });
      reports.push(report);
      const { violations, ...figures } = report;
      process.stdout.write(`  ${JSON.stringify(figures)}\n`);
      for (const v of violations.slice(0, 50)) process.stdout.write(`  VIOLATION ${v}\n`);
      if (violations.length > 50) process.stdout.write(`  ... and ${String(violations.length - 50)} more\n`);
    }
  }
  const failed = reports.filter((r) => r.violations.length > 0);
  const sum = (f: (r: CrashLoopReport) => number): number => reports.reduce((n, r) => n + f(r), 0);
  process.stdout.write(
    `soak: ${String(reports.length)} runs, ${String(sum((r) => r.kills))} kills, ${String(sum((r) => r.acknowledged))} messages acknowledged, ` +
      `${String(sum((r) => r.delivered))} delivered, ${String(failed.length)} failed${failed.length === 0 ? "" : ` (seeds ${failed.map((r) => `${String(r.seed)}/QoS ${String(r.qos)}`).join(", ")})`}\n`,
  );
  return failed.length === 0 ? 0 : 1;
}

// However this process ends, no broker it started outlives it.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

main().then(
  (code) => {
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
