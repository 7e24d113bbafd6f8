// Resume invariant 5 (bounded): copies kept for readers and the readers' cursors are released once
// no reader needs them, however many takeovers pass.
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { fill, Tape } from "../model/tape.test-helpers.js";
import { Track } from "../model/track.js";
import { MAX_SEGMENTS, ResumeTrack } from "./resume-track.js";

const TAKEOVERS = 10_000;
/** Age bound of the age tests (ms), and the clock's step between two failovers there. */
const AGE = 100;
const STEP = 10;
/** The slow reader looks only this often (in takeovers), so it lags up to this many groups. */
const PERIOD = 50;

describe("ResumeTrack memory", () => {
  it("10,000 takeovers with one slow reader keep the held copies bounded by the reader's lag", () => {
    const clock = new ManualClock();
    const resume = new ResumeTrack({ clock });
    const slow = new Tape(resume.subscribe({ start: 0 }));
    let previous: Track | undefined;
    let mostRetained = 0;
    let mostLanes = 0;
    let mostSegments = 0;
    for (let i = 0; i < TAKEOVERS; i++) {
      const copy = new Track(`c${String(i)}`, { clock });
      resume.takeover(copy);
      // Each copy serves one group; the one before drains and ends after the handover (GOAWAY).
      previous?.finish();
      fill(copy.createGroup(i), "a", "b").finish();
      previous = copy;
      if (i % PERIOD === PERIOD - 1) slow.pump();
      mostRetained = Math.max(mostRetained, resume.retained);
      mostLanes = Math.max(mostLanes, slow.reader.cursors);
      mostSegments = Math.max(mostSegments, resume.segments.length);
    }
    previous?.finish();
    resume.finish();
    slow.pump();
    expect(slow.handed.length).toBe(TAKEOVERS);
    expect(new Set(slow.handed).size).toBe(TAKEOVERS);
    expect([slow.lost, slow.lagged, slow.terminal]).toEqual([[], 0, "finished"]);
    expect(mostSegments).toBeLessThanOrEqual(MAX_SEGMENTS);
    // Never more copies kept than the groups the reader was behind by.
    expect(mostRetained).toBeLessThanOrEqual(PERIOD + MAX_SEGMENTS);
    expect(mostLanes).toBeLessThanOrEqual(PERIOD + 2 * MAX_SEGMENTS + 3);
    expect(slow.reader.parked).toBe(0);
  });

  it("a reader that caught up leaves no copy retained, and one that leaves releases what it pinned", () => {
    const clock = new ManualClock();
    const resume = new ResumeTrack({ clock });
    const reader = new Tape(resume.subscribe({ start: 0 }));
    const lagging = resume.subscribe({ start: 0 });
    for (let i = 0; i < 20; i++) {
      const copy = new Track(`c${String(i)}`, { clock });
      resume.takeover(copy);
      copy.createGroup(i).finish();
      copy.finish();
      reader.pump();
    }
    expect(resume.retained).toBeGreaterThan(0); // the lagging reader still needs them
    lagging.close();
    expect(resume.retained).toBe(0);
    expect(reader.handed.length).toBe(20);
  });

  it("with expire() after every step, failovers keep neither copies nor lanes past the age bound, and an idle reader is handed no stale group", () => {
    const clock = new ManualClock();
    const resume = new ResumeTrack({ clock, maxAgeMs: AGE });
    const idle = new Tape(resume.subscribe({ start: 0 }));
    const reader = new Tape(resume.subscribe({ start: 0 }));
    const born = new Map<number, number>();
    const copies: Track[] = [];
    let mostRetained = 0;
    let mostLanes = 0;
    for (let i = 0; i < 200; i++) {
      copies.at(-1)?.drop(); // failover
      const copy = new Track(`c${String(i)}`, { clock, maxAgeMs: AGE });
      copies.push(copy);
      resume.takeover(copy);
      fill(copy.createGroup(i), "x").finish();
      born.set(i, clock.now());
      clock.advance(STEP);
      resume.expire();
      reader.pump();
      mostRetained = Math.max(mostRetained, resume.retained);
      mostLanes = Math.max(mostLanes, idle.reader.cursors, reader.reader.cursors);
    }
    // A copy is kept at most while its group is younger than the bound: AGE / STEP takeovers.
    expect(mostRetained).toBeLessThanOrEqual(AGE / STEP);
    expect(mostLanes).toBeLessThanOrEqual(MAX_SEGMENTS + AGE / STEP + 3);
    const kept = [...resume.segments, ...resume.list.retained].map((segment) => segment.source);
    const stale = kept.flatMap((copy) => [...copy.groups()]).filter((group) => group.createdAt + AGE <= clock.now());
    expect(stale.map((group) => group.sequence)).toEqual([]);
    idle.pump();
    expect(idle.handed.filter((seq) => (born.get(seq) ?? 0) + AGE <= clock.now())).toEqual([]);
    // What the idle reader missed it was told about, each group once.
    expect(idle.handed.length + idle.lost.length + idle.lagged).toBe(200);
    expect(reader.handed.length).toBe(200);
  });

  it("a reader holding a group from a copy a park replaced is not handed it once the cache's copy aged out", () => {
    const clock = new ManualClock();
    const resume = new ResumeTrack({ clock, maxAgeMs: AGE });
    const a = new Track("a", { clock, maxAgeMs: AGE });
    resume.takeover(a);
    const idle = new Tape(resume.subscribe({ start: 0 }));
    fill(a.createGroup(0), "x").finish();
    resume.park(); // the cache holds group 0 whole, so A is let go at once
    a.drop();
    resume.takeover(new Track("b", { clock, maxAgeMs: AGE }));
    expect(resume.retained).toBe(0);
    clock.advance(AGE);
    resume.expire();
    idle.pump();
    expect([idle.handed, idle.lost]).toEqual([[], [0]]);
  });
});
