// Throughput of one resumed track fanned out to many readers, with and without takeovers, and the
// memory a reader costs. Prints figures; asserts nothing.
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

function runScenario(s: Scenario): { ms: number; delivered: number } {
  const clock = new ManualClock();
  const resume = new ResumeTrack({ clock, maxGroups: 32 });
  let copies = 0;
  const copy = (): Track => new Track(`c${String(copies++)}`, { clock, maxGroups: 32 });
  let source = copy();
  resume.takeover(source);
  const readers = Array.from({ length: s.readers }, () => ({ reader: resume.subscribe({ start: 0 }), open: new Set<GroupReader>() }));
  let delivered = 0;
  const t0 = performance.now();
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
  const ms = performance.now() - t0;
  for (const r of readers) r.reader.close();
  return { ms, delivered };
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

/** Prints groups/s and frames/s through one resumed track to 1, 100 and 1000 readers. */
export async function benchResume(): Promise<void> {
  await Promise.resolve();
  console.log("moq-resume: one track, 5 frames of 100 B per group (best of 3 runs)");
  console.log("readers  takeover          groups/s   frames/s delivered");
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
  for (const [readers, groups] of plans) {
    for (const [label, every, park] of modes) {
      // Best of three: the figures are for a quiet machine, not for whatever else shares the cores.
      let best = { ms: Infinity, delivered: 0 };
      for (let round = 0; round < 3; round++) {
        const result = runScenario({ readers, groups, frames: 5, takeoverEvery: every, park });
        if (result.ms < best.ms) best = result;
      }
      const { ms, delivered } = best;
      const seconds = ms / 1000;
      if (delivered !== readers * groups * 5) console.log(`  (delivered ${String(delivered)} of ${String(readers * groups * 5)} frames)`);
      console.log(
        `${String(readers).padStart(7)}  ${label.padEnd(16)} ${format(groups / seconds).padStart(9)} ${format(delivered / seconds).padStart(10)}`,
      );
    }
  }
  console.log(`memory per reader (10k readers, 8 groups read): ~${format(memoryPerReader(10_000))} B`);
}
