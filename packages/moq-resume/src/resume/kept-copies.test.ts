// Which copies a resumed track keeps after they leave its segment list (parked, pruned or folded),
// decided from what readers were handed and what a copy may still bring, never from a maximum.
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { fill, Tape } from "../model/tape.test-helpers.js";
import { Track } from "../model/track.js";
import { ResumeTrack } from "./resume-track.js";

function setup(): { resume: ResumeTrack; copy: (name: string) => Track } {
  const clock = new ManualClock();
  const resume = new ResumeTrack({ clock });
  return { resume, copy: (name) => new Track(name, { clock }) };
}

/**
 * Issue 42 (1): group 0 split by a GOAWAY handover, A holding it from frame 0 and B continuing it
 * from frame 2 (with `rest` more frames), both copies finished and pruned from the list by quick
 * handovers while B stays open (it still drains). Returns the copies.
 */
function splitThenPruned(resume: ResumeTrack, copy: (name: string) => Track, rest: string[]): { a: Track; b: Track } {
  const a = copy("a");
  resume.takeover(a);
  const head = fill(a.createGroup(0), "0", "1");
  const b = copy("b");
  expect(resume.takeover(b).boundary).toMatchObject({ group: 0, frame: 2 });
  const tail = b.createGroup(0, { firstFrame: 2 });
  // The publisher's next frames reach both copies; then the group ends on both.
  for (const group of [head, tail]) fill(group, ...rest).finish();
  a.finish(); // A drained what it owed
  for (let i = 1; i <= 3; i++) {
    const next = copy(`c${String(i)}`);
    resume.takeover(next);
    next.createGroup(i).finish();
    next.finish();
  }
  expect(resume.segments.some((s) => s.source === a || s.source === b)).toBe(false);
  return { a, b };
}

describe("copies kept after they leave the segment list", () => {
  it("a newcomer joining after both copies of a split group were pruned reads it from its first frame", () => {
    const { resume, copy } = setup();
    splitThenPruned(resume, copy, ["2"]);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    tape.pump();
    expect(tape.text(0)).toBe("012");
    expect([tape.gaps.size, tape.endings.get(0)]).toEqual([0, "end"]);
  });

  it("a newcomer is not left pending on a kept copy that continues a split group with no frame of it", () => {
    const { resume, copy } = setup();
    const { b } = splitThenPruned(resume, copy, []);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    tape.pump();
    b.finish();
    resume.finish();
    tape.pump();
    expect(tape.text(0)).toBe("01");
    expect([tape.gaps.size, tape.endings.get(0), tape.terminal]).toEqual([0, "end", "finished"]);
  });

  it("the copies kept for a split group's head go once the copy that continues it ends", () => {
    const { resume, copy } = setup();
    const { b } = splitThenPruned(resume, copy, ["2"]);
    expect(resume.retained).toBe(2); // B drains; A holds the head B lacks
    b.finish();
    expect(resume.retained).toBe(0);
  });


  it("a late group on a copy draining after a park reaches a reader that joined after the park", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    fill(a.createGroup(1), "x"); // group 0 is still in flight on A
    resume.park();
    // Nobody reads yet, but A stays alive to drain what it owes up to the boundary.
    resume.takeover(copy("b"));
    const tape = new Tape(resume.subscribe({ start: 0 }));
    fill(a.createGroup(0), "late").finish();
    a.finish();
    tape.pump();
    expect(tape.handed).toContain(0);
    expect(tape.text(0)).toBe("late");
    expect([tape.lost, tape.lagged]).toEqual([[], 0]);
  });

  it("a copy kept while it drains is let go as soon as it ends", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    a.createGroup(1).finish();
    resume.park();
    resume.takeover(copy("b"));
    expect(resume.retained).toBe(1);
    a.finish();
    expect(resume.retained).toBe(0);
  });

  it("a reader mid-group keeps the copy that ends the group, though it holds no frame past the reader", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    fill(a.createGroup(0), "x");
    tape.pump(); // frame 0 read from A
    a.drop();
    const b = copy("b");
    expect(resume.takeover(b).boundary).toMatchObject({ group: 0, frame: 1 });
    // B continues group 0 at frame 1 and ends it there: its only news for the reader is the end.
    b.createGroup(0, { firstFrame: 1 }).finish();
    b.finish();
    // The reader looks only after takeovers pruned every segment that held the end.
    for (let i = 1; i <= 6; i++) {
      const next = copy(`c${String(i)}`);
      resume.takeover(next);
      next.createGroup(i).finish();
      next.finish();
    }
    resume.finish();
    tape.pump();
    expect(tape.text(0)).toBe("x");
    expect(tape.endings.get(0)).toBe("end");
    expect(tape.terminal).toBe("finished");
  });
});
