// Resume invariant 5 (bounded): copies kept for readers and the readers' cursors are released once
// no reader needs them, however many takeovers pass.
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { fill, Tape } from "../model/tape.test-helpers.js";
import { Track } from "../model/track.js";
import { MAX_SEGMENTS, ResumeTrack } from "./resume-track.js";

const TAKEOVERS = 10_000;
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
});
