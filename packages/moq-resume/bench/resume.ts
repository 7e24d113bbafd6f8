// Throughput of one resumed track fanned out to many readers, with and without takeovers, and the
// memory a reader costs. Prints figures next to bench/baseline.json's and flags any that fell by
// more than 10%; asserts nothing. Each run writes bench/results/latest.json; `--write-baseline`
// also makes it the new baseline.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ManualClock } from "@handoff/seqlog";
import { Track, type GroupReader, type TrackReader } from "../src/model/index.js";
import { ResumeTrack } from "../src/resume/index.js";

interface Scenario {
  readonly readers: number;
  readonly groups: number;
  readonly frames: number;
  /** Take over every N groups (0: never). */
  readonly takeoverEvery: number;
  /** Park before each takeover and land it mid-group. */
  readonly park: boolean;
}

const payload = new Uint8Array(100);

/** Reads everything a reader can read now; returns the frames read. */
function drain(reader: TrackReader, open: Set<GroupReader>): number {
  let frames = 0;
  for (;;) {
    const event = reader.recvGroup();
    if (event.kind !== "group") {
      if (event.kind === "pending" || event.kind === "finished" || event.kind === "error") break;
      continue;
    }
    open.add(event.group);
  }
  for (const group of open) {
    for (;;) {
      const event = group.readFrame();
      if (event.kind === "frame") {
        frames += 1;
        continue;
      }
      if (event.kind === "end" || event.kind === "lost") open.delete(group);
      break;
    }
  }
  return frames;
}

/**
 * One scenario's cost: CPU time of this process (what the work costs, which other load on a shared
 * machine barely moves) and wall time.
 */
interface Run {
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly delivered: number;
}

function runScenario(s: Scenario): Run {
  const clock = new ManualClock();
  const resume = new ResumeTrack({ clock, maxGroups: 32 });
  let copies = 0;
  const copy = (): Track => new Track(`c${String(copies++)}`, { clock, maxGroups: 32 });
  let source = copy();
  resume.takeover(source);
  const readers = Array.from({ length: s.readers }, () => ({ reader: resume.subscribe({ start: 0 }), open: new Set<GroupReader>() }));
  let delivered = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let g = 0; g < s.groups; g++) {
    let group = source.createGroup(g);
    for (let f = 0; f < s.frames; f++) {
      const switching = s.takeoverEvery > 0 && g > 0 && g % s.takeoverEvery === 0 && f === (s.park ? s.frames >> 1 : 0);
      if (switching) {
        if (s.park) resume.park();
        source.drop();
        source = copy();
        const { boundary } = resume.takeover(source);
        if (boundary && boundary.frame > 0) group = source.createGroup(boundary.group, { firstFrame: boundary.frame });
        else if (!s.park) group = source.createGroup(g);
      }
      group.write(payload);
    }
    group.finish();
    for (const r of readers) delivered += drain(r.reader, r.open);
  }
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  for (const r of readers) r.reader.close();
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, delivered };
}

// A bench may force a collection so heap deltas measure what is retained, not garbage.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function memoryPerReader(count: number): number {
  const clock = new ManualClock();
  const resume = new ResumeTrack({ clock });
  const source = new Track("m", { clock });
  resume.takeover(source);
  for (let g = 0; g < 8; g++) source.createGroup(g).finish();
  gc();
  const before = process.memoryUsage().heapUsed;
  const readers: TrackReader[] = [];
  for (let i = 0; i < count; i++) readers.push(resume.subscribe({ start: 0 }));
  for (const reader of readers) drain(reader, new Set());
  gc();
  const after = process.memoryUsage().heapUsed;
  const per = (after - before) / count;
  for (const reader of readers) reader.close();
  return per;
}

function format(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0);
}

/** One fan-out figure: a reader count and a takeover mode. */
interface Figure {
  /** Groups per CPU second. */
  readonly groupsPerSec: number;
  /** Frames delivered per CPU second. */
  readonly framesPerSec: number;
  /** Groups per wall-clock second of the same run (load on the machine shows here). */
  readonly wallGroupsPerSec: number;
}

/** What one run measured, as written to results/latest.json and baseline.json. */
interface Report {
  readonly date: string;
  readonly node: string;
  readonly cpus: number;
  /** How the figures were taken. */
  readonly method: string;
  /** Keyed `<readers> readers, takeover <mode>`. */
  readonly fanout: Record<string, Figure>;
  readonly memoryPerReaderBytes: number;
}

/** A figure below this share of the baseline's is flagged. */
const REGRESSION = 0.9;

function readBaseline(url: URL): Report | undefined {
  if (!existsSync(url)) return undefined;
  return JSON.parse(readFileSync(url, "utf8")) as Report;
}

/** `now / then`, flagged when it fell by more than 10%. */
function versus(now: number, then: number | undefined, higherIsBetter = true): { text: string; regressed: boolean } {
  if (then === undefined || then <= 0 || now <= 0) return { text: "-", regressed: false };
  const ratio = higherIsBetter ? now / then : then / now;
  const regressed = ratio < REGRESSION;
  return { text: `${ratio.toFixed(2)}x${regressed ? " !" : ""}`, regressed };
}

/** Prints groups/s and frames/s through one resumed track to 1, 100 and 1000 readers. */
export async function benchResume(): Promise<void> {
  await Promise.resolve();
  const baselineUrl = new URL("./baseline.json", import.meta.url);
  const baseline = readBaseline(baselineUrl);
  console.log("moq-resume: one track, 5 frames of 100 B per group (best of 3 runs, per CPU second of this process)");
  console.log(baseline === undefined ? "(no bench/baseline.json to compare with)" : `then: bench/baseline.json (${baseline.date}); now/then per figure, ! = more than 10% worse`);
  console.log("readers  takeover          groups/s   frames/s  then groups/s  now/then");
  const plans: [number, number][] = [
    [1, 10_000],
    [100, 1_000],
    [1000, 100],
  ];
  const modes: [string, number, boolean][] = [
    ["none", 0, false],
    ["every 50", 50, false],
    ["every 50 + park", 50, true],
  ];
  // Warm-up, unmeasured: the first figure would otherwise time the JIT compiling the read path.
  for (const [, every, park] of modes) runScenario({ readers: 1, groups: 10_000, frames: 5, takeoverEvery: every, park });
  const fanout: Record<string, Figure> = {};
  const regressions: string[] = [];
  for (const [readers, groups] of plans) {
    for (const [label, every, park] of modes) {
      // Best of three, by CPU time: the figures are for a quiet machine, not for whatever else
      // shares the cores (wall time on a loaded machine varies twofold from run to run).
      let best: Run = { cpuMs: Infinity, wallMs: Infinity, delivered: 0 };
      for (let round = 0; round < 3; round++) {
        const result = runScenario({ readers, groups, frames: 5, takeoverEvery: every, park });
        if (result.cpuMs < best.cpuMs) best = result;
      }
      const { cpuMs, wallMs, delivered } = best;
      const seconds = cpuMs / 1000;
      if (delivered !== readers * groups * 5) console.log(`  (delivered ${String(delivered)} of ${String(readers * groups * 5)} frames)`);
      const key = `${String(readers)} readers, takeover ${label}`;
      const figure = { groupsPerSec: groups / seconds, framesPerSec: delivered / seconds, wallGroupsPerSec: groups / (wallMs / 1000) };
      fanout[key] = figure;
      const then = baseline?.fanout[key]?.groupsPerSec;
      const cmp = versus(figure.groupsPerSec, then);
      if (cmp.regressed) regressions.push(key);
      console.log(
        `${String(readers).padStart(7)}  ${label.padEnd(16)} ${format(figure.groupsPerSec).padStart(9)} ${format(figure.framesPerSec).padStart(10)}` +
          `  ${(then === undefined ? "-" : format(then)).padStart(13)}  ${cmp.text.padStart(8)}`,
      );
    }
  }
  const memory = memoryPerReader(10_000);
  const memoryThen = baseline?.memoryPerReaderBytes;
  const memoryCmp = versus(memory, memoryThen, false);
  if (memoryCmp.regressed) regressions.push("memory per reader");
  console.log(
    `memory per reader (10k readers, 8 groups read): ~${format(memory)} B` +
      (memoryThen === undefined ? "" : ` (then ~${format(memoryThen)} B, then/now ${memoryCmp.text})`),
  );
  if (baseline !== undefined) {
    console.log(regressions.length === 0 ? "no figure is more than 10% worse than the baseline" : `more than 10% worse than the baseline: ${regressions.join("; ")}`);
  }
  const report: Report = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    method: "best of 3 runs per figure, by CPU time of the bench process",
    fanout,
    memoryPerReaderBytes: memory,
  };
  const resultsDir = new URL("./results/", import.meta.url);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(new URL("latest.json", resultsDir), `${JSON.stringify(report, null, 2)}\n`);
  if (process.argv.includes("--write-baseline")) {
    writeFileSync(baselineUrl, `${JSON.stringify(report, null, 2)}\n`);
    console.log("written: bench/baseline.json");
  }
}
