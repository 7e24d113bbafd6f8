// Model-based property test: random interleavings of production, reordering, takeovers (mid-group
// or not), parks, evictions, idle releases and readers joining, reading, capping and leaving,
// checked against a reference of what each reader is owed. Aged: with `expire()` after every step
// of the clock, the copies kept and every reader's lanes stay bounded whatever the number of
// takeovers, and no reader is handed a group past the age bound (invariant 5).
import { ManualClock } from "@handoff/seqlog";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Group } from "../model/group.js";
import { frame, Tape } from "../model/tape.test-helpers.js";
import {
  propertyRuns,
  publishOps,
  readerOps,
  safetyNet,
  sequences,
  small,
  type PublishOp,
  type ReaderOp,
} from "./model-ops.test-helpers.js";
import { Track } from "../model/track.js";
import { MAX_SEGMENTS, ResumeTrack } from "./resume-track.js";

type Op =
  | PublishOp
  | { readonly op: "takeover"; readonly park: boolean; readonly clear: boolean }
  | { readonly op: "evict" }
  | { readonly op: "idle" }
  | ReaderOp
  | { readonly op: "leave"; readonly pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  ...publishOps,
  { arbitrary: fc.record({ op: fc.constant("takeover" as const), park: fc.boolean(), clear: fc.boolean() }), weight: 3 },
  { arbitrary: fc.constant({ op: "evict" as const }), weight: 1 },
  { arbitrary: fc.constant({ op: "idle" as const }), weight: 1 },
  ...readerOps,
  { arbitrary: fc.record({ op: fc.constant("leave" as const), pick: small }), weight: 1 },
);

interface Truth {
  frames: number;
  finished: boolean;
}

interface Sim {
  readonly tape: Tape;
  /**
   * What the publisher produced in the reader's era: an idle release restarts numbering, and only
   * happens once every reader left, so a reader lives in one era.
   */
  readonly truth: ReadonlyMap<number, Truth>;
  readonly floor: number | undefined;
  readonly owed: Set<number>;
  readonly order: "recv" | "next";
  left: boolean;
}

const decoder = new TextDecoder();
/** The age bound of every copy (ms). */
const MAX_AGE = 100;
/**
 * Aged runs: how far the clock moves after each step, before `expire()` (drawn per run: short
 * steps let a group outlive a park and a few takeovers, long ones let kept copies pile up fastest).
 */
const ageStep = fc.integer({ min: 5, max: 60 });

/**
 * Aged runs: the most copies kept at once. A closed copy is kept only for a group it holds, and
 * after `expire()` every group held is younger than the bound, so each kept copy was fed or made
 * (a new copy, a park's cache, a fold's cache: at most 3 a step) in the last MAX_AGE / step
 * steps, or is the one feeding the track now. However many takeovers there were.
 */
function mostKeptAged(step: number): number {
  return 3 * Math.ceil(MAX_AGE / step) + 1;
}

/** How a run treats loss: `lossy` may evict and tear down, `lossless` never does, `aged` expires after every step. */
type Mode = "lossy" | "lossless" | "aged";

/**
 * Runs one sequence. `lossless` makes caches large and never evicts or tears down a copy, so every
 * finished group must arrive whole: no loss signal is acceptable there. `aged` is lossy, and after
 * every step moves the clock by `step` ms and expires.
 */
function run(ops: readonly Op[], mode: Mode, step = 0): void {
  const lossless = mode === "lossless";
  const aged = mode === "aged";
  const clock = new ManualClock();
  const maxGroups = lossless ? 64 : 4;
  const resume = new ResumeTrack({ clock, maxGroups, maxAgeMs: MAX_AGE, lingerMs: 10 });
  let copies = 0;
  const copy = (): Track => new Track(`c${String(copies++)}`, { clock, maxGroups, maxAgeMs: MAX_AGE });
  let current: Track = copy();
  resume.takeover(current);
  let truth = new Map<number, Truth>();
  /** When the newest copy of each group was made: none is younger than that. */
  let born = new Map<number, number>();
  let nextSeq = 0;
  let reserved: number[] = [];
  const readers: Sim[] = [];

  const inRange = (seq: number): boolean => {
    const start = resume.list.tail?.start;
    return start === undefined || seq >= start;
  };
  const create = (source: Track, seq: number): void => {
    source.createGroup(seq);
    truth.set(seq, { frames: 0, finished: false });
    born.set(seq, clock.now());
  };
  /** Reads what a reader can; in aged runs, no group it is handed is past the age bound. */
  const pump = (reader: Sim | undefined): void => {
    if (reader === undefined) return;
    const before = reader.tape.handed.length;
    reader.tape.pump();
    if (!aged) return;
    const stale = reader.tape.handed.slice(before).filter((seq) => (born.get(seq) ?? -Infinity) + MAX_AGE <= clock.now());
    expect(stale).toEqual([]);
  };
  const openGroups = (source: Track): Group[] => [...source.groups()].filter((g) => !g.sealed);
  const live = (): Sim[] => readers.filter((r) => !r.left);
  const markOwed = (): void => {
    for (const reader of live()) {
      for (const seq of truth.keys()) {
        if (reader.floor !== undefined && seq < reader.floor) continue;
        if (resume.holders(seq).length > 0) reader.owed.add(seq);
      }
    }
  };

  for (const op of ops) {
    switch (op.op) {
      case "group":
        create(current, nextSeq++);
        break;
      case "skip":
        reserved.push(nextSeq++);
        break;
      case "late": {
        const seq = reserved.shift();
        if (seq !== undefined && inRange(seq)) create(current, seq);
        break;
      }
      case "frame": {
        const open = openGroups(current);
        const group = open[op.pick % Math.max(1, open.length)];
        const entry = group && truth.get(group.sequence);
        if (group && entry) {
          group.write(frame(`${String(group.sequence)}:${String(group.frameEnd)}`));
          entry.frames = group.frameEnd;
        }
        break;
      }
      case "finishGroup": {
        const open = openGroups(current);
        const group = open[op.pick % Math.max(1, open.length)];
        group?.finish();
        const entry = group && truth.get(group.sequence);
        if (entry) entry.finished = true;
        break;
      }
      case "takeover": {
        if (op.park && resume.segments.length > 0) resume.park();
        // The old copy goes away; sometimes it tears its groups down first.
        if (op.clear && !lossless) current.clear();
        current.drop();
        current = copy();
        const { boundary } = resume.takeover(current);
        if (boundary && boundary.frame > 0) {
          // The new upstream copy continues the open group from the boundary: the origin resends
          // whatever frames past it the lost copies had.
          const group = current.createGroup(boundary.group, { firstFrame: boundary.frame });
          born.set(boundary.group, clock.now());
          const total = truth.get(boundary.group)?.frames ?? 0;
          for (let i = boundary.frame; i < total; i++) group.write(frame(`${String(boundary.group)}:${String(i)}`));
          // A group that ended on a copy since torn down: the origin has its end too.
          if (truth.get(boundary.group)?.finished) group.finish();
        }
        break;
      }
      case "evict":
        if (lossless) break;
        clock.advance(60);
        resume.expire();
        break;
      case "idle":
        clock.advance(10);
        if (resume.releaseIfIdle()) {
          truth = new Map();
          born = new Map();
          nextSeq = 0;
          reserved = [];
          current = copy();
          resume.takeover(current);
        }
        break;
      case "join": {
        let maxCreated: number | undefined;
        for (const seq of truth.keys()) if (maxCreated === undefined || seq > maxCreated) maxCreated = seq;
        const reader = resume.subscribe({
          ...(op.start === undefined ? {} : { start: op.start }),
          ...(op.end === undefined ? {} : { end: op.end }),
        });
        readers.push({
          tape: new Tape(reader, op.order),
          truth,
          floor: op.start ?? maxCreated,
          owed: new Set(),
          order: op.order,
          left: false,
        });
        break;
      }
      case "read":
        pump(live()[op.pick % Math.max(1, live().length)]);
        break;
      case "cap":
        live()[op.pick % Math.max(1, live().length)]?.tape.reader.endAt(op.end);
        break;
      case "leave": {
        const reader = live()[op.pick % Math.max(1, live().length)];
        if (reader) {
          reader.tape.reader.close();
          reader.left = true;
        }
        break;
      }
    }
    markOwed();
    if (aged) expireAndCheck(resume, clock, step);
    // Bounded: the list never grows past the bound; cursors stay within lanes + retired.
    expect(resume.segments.length).toBeLessThanOrEqual(MAX_SEGMENTS);
    // Lanes: the list, the copies kept for readers that still need them, and 3 draining ones.
    for (const reader of live()) expect(reader.tape.reader.cursors).toBeLessThanOrEqual(MAX_SEGMENTS + resume.retained + 3);
  }

  // Drain: finish what is open, end the track, lift every cap, read everything.
  for (const group of openGroups(current)) {
    group.finish();
    const entry = truth.get(group.sequence);
    if (entry) entry.finished = true;
  }
  current.finish();
  resume.finish();
  markOwed();
  for (const reader of live()) {
    reader.tape.reader.endAt(undefined);
    pump(reader);
  }

  for (const reader of readers) {
    const { tape } = reader;
    // Never twice: no group handed twice, no frame read twice or out of order.
    expect(new Set(tape.handed).size).toBe(tape.handed.length);
    for (const [seq, texts] of tape.frames) {
      const indexes = texts.map((text) => Number(decoder.decode(frame(text)).split(":")[1]));
      const covered = new Set(indexes);
      for (const [from, to] of tape.gaps.get(seq) ?? []) for (let i = from; i <= to; i++) covered.add(i);
      for (let i = 1; i < indexes.length; i++) expect(indexes[i]).toBeGreaterThan(indexes[i - 1] ?? -1);
      // Mid-group continuity and head for newcomers: a group read to its end has every frame.
      if (tape.endings.get(seq) === "end") {
        const total = reader.truth.get(seq)?.frames ?? indexes.length;
        for (let i = 0; i < total; i++) expect(covered.has(i)).toBe(true);
      }
    }
    if (reader.order === "next") {
      // Sequence order: strictly increasing.
      for (let i = 1; i < tape.handed.length; i++) expect(tape.handed[i]).toBeGreaterThan(tape.handed[i - 1] ?? -1);
    }
    if (lossless) {
      // Nothing was evicted: no loss signal, and every finished group handed out arrives whole.
      expect([tape.lost, tape.lagged, tape.gaps.size]).toEqual([[], 0, 0]);
      for (const seq of tape.handed) {
        const entry = reader.truth.get(seq);
        if (entry?.finished && !reader.left) expect(tape.endings.get(seq)).toBe("end");
      }
    }
    if (reader.left) continue;
    if (reader.order === "recv") {
      // Never silently missing: every owed group was handed out or explicitly reported lost.
      const accounted = new Set([...tape.handed, ...tape.lost]);
      const missing = [...reader.owed].filter((seq) => !accounted.has(seq));
      expect(missing.length).toBeLessThanOrEqual(tape.lagged);
      expect(tape.terminal).toBe("finished");
    }
    tape.reader.close();
  }
  // Bounded: once every reader left, no cursor remains registered.
  expect(resume.list.observers).toBe(0);
}

/**
 * One aged step: the clock moves, `expire()` runs, and then no copy a reader can be handed from
 * (listed or kept) holds a group past the bound, a closed kept copy holds some group (else nothing
 * keeps it), and the kept copies stay within {@link mostKeptAged} (the run checks lanes against
 * the list, those and 3 draining ones).
 */
function expireAndCheck(resume: ResumeTrack, clock: ManualClock, step: number): void {
  clock.advance(step);
  resume.expire();
  const stale: number[] = [];
  for (const { source } of [...resume.segments, ...resume.list.retained]) {
    for (const group of source.groups()) if (group.createdAt + MAX_AGE <= clock.now()) stale.push(group.sequence);
  }
  expect(stale).toEqual([]);
  const empty = resume.list.retained.filter(({ source }) => source.closed && source.cached === 0);
  expect(empty.length).toBe(0);
  expect(resume.retained).toBeLessThanOrEqual(mostKeptAged(step));
}

const RUNS = propertyRuns(2000);
const LOSSLESS_RUNS = propertyRuns(1000);

describe("resume model", () => {
  it("never hands a group or frame twice, never drops one silently, and stays bounded", safetyNet(RUNS), () => {
    fc.assert(
      fc.property(sequences(opArb), (ops) => {
        run(ops, "lossy");
      }),
      { numRuns: RUNS },
    );
  });

  it("without evictions delivers every finished group whole to every reader that stayed", safetyNet(LOSSLESS_RUNS), () => {
    fc.assert(
      fc.property(sequences(opArb), (ops) => {
        run(ops, "lossless");
      }),
      { numRuns: LOSSLESS_RUNS },
    );
  });

  it("with expire() after every step keeps copies and lanes bounded and hands out no group past the age bound", safetyNet(RUNS), () => {
    fc.assert(
      fc.property(sequences(opArb), ageStep, (ops, step) => {
        run(ops, "aged", step);
      }),
      { numRuns: RUNS },
    );
  });
});
