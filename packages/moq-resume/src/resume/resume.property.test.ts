// Model-based property test: random interleavings of production, reordering, takeovers (mid-group
// or not), parks, evictions, idle releases and readers joining, reading, capping and leaving,
// checked against a reference of what each reader is owed.
import { ManualClock } from "@handoff/seqlog";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Group } from "../model/group.js";
import { frame, Tape } from "../model/tape.test-helpers.js";
import { publishOps, readerOps, small, type PublishOp, type ReaderOp } from "./model-ops.test-helpers.js";
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
  readonly floor: number | undefined;
  readonly owed: Set<number>;
  readonly order: "recv" | "next";
  left: boolean;
}

const decoder = new TextDecoder();

/**
 * Runs one sequence. `lossless` makes caches large and never evicts or tears down a copy, so every
 * finished group must arrive whole: no loss signal is acceptable there.
 */
function run(ops: readonly Op[], lossless: boolean): void {
  const clock = new ManualClock();
  const maxGroups = lossless ? 64 : 4;
  const resume = new ResumeTrack({ clock, maxGroups, maxAgeMs: 100, lingerMs: 10 });
  let copies = 0;
  const copy = (): Track => new Track(`c${String(copies++)}`, { clock, maxGroups, maxAgeMs: 100 });
  let current: Track = copy();
  resume.takeover(current);
  let truth = new Map<number, Truth>();
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
          const total = truth.get(boundary.group)?.frames ?? 0;
          for (let i = boundary.frame; i < total; i++) group.write(frame(`${String(boundary.group)}:${String(i)}`));
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
          floor: op.start ?? maxCreated,
          owed: new Set(),
          order: op.order,
          left: false,
        });
        break;
      }
      case "read":
        live()[op.pick % Math.max(1, live().length)]?.tape.pump();
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
    reader.tape.pump();
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
        const total = truth.get(seq)?.frames ?? indexes.length;
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
        const entry = truth.get(seq);
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

describe("resume model", () => {
  it("never hands a group or frame twice, never drops one silently, and stays bounded", () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        run(ops, false);
      }),
      { numRuns: 2000 },
    );
  });

  it("without evictions delivers every finished group whole to every reader that stayed", () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        run(ops, true);
      }),
      { numRuns: 1000 },
    );
  });
});
