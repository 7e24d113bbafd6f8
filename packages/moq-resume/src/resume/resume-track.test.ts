// Scenarios of the upstream resume suite (reference notes §5), restated for this model.
import { ManualClock, SegmentBoundsError } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { ClosedError } from "../model/errors.js";
import { fill, Tape } from "../model/tape.test-helpers.js";
import { Track } from "../model/track.js";
import { MAX_SEGMENTS, ResumeTrack } from "./resume-track.js";

function setup(options: { lingerMs?: number; maxGroups?: number } = {}): {
  clock: ManualClock;
  resume: ResumeTrack;
  copy: (name: string, info?: { priority: number }) => Track;
} {
  const clock = new ManualClock();
  const resume = new ResumeTrack({ clock, ...options });
  return {
    clock,
    resume,
    copy: (name, info) => new Track(name, { clock, ...(options.maxGroups === undefined ? {} : { maxGroups: options.maxGroups }), ...(info === undefined ? {} : { info }) }),
  };
}

describe("ResumeTrack splices", () => {
  it("switching at a group splices the copies and filters the old copy past its cap", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.switch(a, undefined);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    fill(a.createGroup(0), "a0").finish();
    fill(a.createGroup(1), "a1").finish();
    const b = copy("b");
    resume.switch(b, 2);
    fill(a.createGroup(2), "a2").finish();
    fill(b.createGroup(2), "b2").finish();
    fill(b.createGroup(3), "b3").finish();
    tape.pump();
    expect(tape.handed).toEqual([0, 1, 2, 3]);
    expect(tape.text(2)).toBe("b2");
  });

  it("rejects a switch whose boundary does not advance", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.switch(a, 4);
    a.createGroup(4).finish();
    expect(() => resume.switch(copy("b"), 4)).toThrow(SegmentBoundsError);
  });

  it("computes takeover boundaries: the first unbounded, later ones past the newest group", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    expect(resume.takeover(a).boundary).toBeUndefined();
    a.createGroup(0).finish();
    a.createGroup(1).finish();
    expect(resume.takeover(copy("b")).boundary).toEqual({ group: 2, frame: 0 });
  });

  it("replaces a copy that never produced, so group 0 can still come from the next one", () => {
    const { resume, copy } = setup();
    resume.takeover(copy("a"));
    const b = copy("b");
    const { segment } = resume.takeover(b);
    const tape = new Tape(resume.subscribe());
    b.createGroup(0).finish();
    tape.pump();
    expect([segment.start, resume.segments.length, tape.handed]).toEqual([undefined, 1, [0]]);
  });

  it("survives a copy that died before producing", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    a.createGroup(0).finish();
    const b = copy("b");
    resume.takeover(b);
    b.drop();
    expect(resume.takeover(copy("c")).boundary).toEqual({ group: 1, frame: 0 });
    expect(resume.segments.map((s) => s.source.name)).toEqual(["a", "c"]);
  });

  it("a sequence-order reader never gets the boundary duplicate twice", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }), "next");
    fill(a.createGroup(0), "x");
    const b = copy("b");
    resume.takeover(b);
    fill(b.createGroup(0, { firstFrame: 1 }), "y").finish();
    b.createGroup(1).finish();
    tape.pump();
    expect(tape.handed).toEqual([0, 1]);
    expect(tape.text(0)).toBe("xy");
  });

  it("a copy missing the head of the seam group is reported as a gap", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    fill(a.createGroup(0), "x");
    const b = copy("b");
    resume.takeover(b);
    a.clear(); // the old copy dies with the head before anyone read it
    fill(b.createGroup(0, { firstFrame: 1 }), "y").finish();
    const tape = new Tape(resume.subscribe({ start: 0 }));
    expect(tape.pump()).toEqual(["+0", "0~0-0", "0:y", "0."]);
  });

  it("takes the track info from the first segment", () => {
    const { resume, copy } = setup();
    resume.takeover(copy("a", { priority: 7 }));
    expect(resume.info.priority).toBe(7);
  });
});

describe("ResumeTrack demand", () => {
  it("asks a new copy for the live edge when every reader wants the live edge", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    a.createGroup(0).finish();
    resume.subscribe();
    const { segment } = resume.takeover(copy("b"));
    expect(resume.demand(segment)).toEqual({ start: undefined, end: undefined });
  });

  it("keeps an explicit start across a takeover, raised to the boundary", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    for (let i = 0; i < 3; i++) a.createGroup(i).finish();
    resume.subscribe({ start: 1 });
    const { segment } = resume.takeover(copy("b"));
    expect(resume.demand(segment)).toEqual({ start: 3, end: undefined });
    expect(resume.demand(resume.segments[0] ?? segment)).toEqual({ start: 1, end: 2 });
  });

  it("intersects a reader's cap with the segment's end and re-slices when the cap changes", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.switch(a, 0);
    const reader = resume.subscribe({ start: 0, end: 10 });
    a.createGroup(0).finish();
    resume.switch(copy("b"), 5);
    const first = resume.segments[0];
    expect(first && resume.demand(first)).toEqual({ start: 0, end: 4 });
    reader.endAt(2);
    expect(first && resume.demand(first)).toEqual({ start: 0, end: 2 });
  });
});

describe("ResumeTrack stalls and ends", () => {
  it("a dead copy stalls its readers without an error until the next takeover resumes them", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(0).finish();
    a.drop();
    tape.pump();
    expect(tape.terminal).toBeUndefined();
    const b = copy("b");
    resume.takeover(b);
    b.createGroup(1).finish();
    tape.pump();
    expect(tape.handed).toEqual([0, 1]);
  });

  it("finishing ends readers only once the final segment drained", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(0).finish();
    resume.finish();
    tape.pump();
    expect(tape.terminal).toBeUndefined();
    a.createGroup(1).finish();
    a.finish();
    tape.pump();
    expect([tape.handed, tape.terminal]).toEqual([[0, 1], "finished"]);
  });

  it("an abort surfaces after the buffered groups drain", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(0).finish();
    resume.abort(9);
    tape.pump();
    expect([tape.handed, tape.terminal]).toEqual([[0], "TrackAbortedError"]);
  });

  it("finish and abort are exclusive: the first one wins", () => {
    const { resume } = setup();
    resume.finish();
    resume.abort(1);
    expect(resume.terminal()).toEqual({ kind: "finished" });
    expect(() => resume.takeover(new Track("x", { clock: new ManualClock() }))).toThrow(ClosedError);
  });

  it("a dropped producer keeps a live copy serving and errors readers once it drained", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    resume.drop();
    a.createGroup(0).finish();
    tape.pump();
    expect(tape.terminal).toBeUndefined();
    a.finish();
    tape.pump();
    expect([tape.handed, tape.terminal]).toEqual([[0], "TrackDroppedError"]);
  });

  it("eviction wakes a capped reader and tells it the parked group is lost", () => {
    const { resume, copy } = setup({ maxGroups: 2 });
    const a = copy("a");
    resume.takeover(a);
    const reader = resume.subscribe({ start: 0, end: 0 });
    const tape = new Tape(reader);
    let wakes = 0;
    reader.watch(() => (wakes += 1));
    a.createGroup(0).finish();
    a.createGroup(1).finish();
    tape.pump();
    const before = wakes;
    a.createGroup(2).finish();
    a.createGroup(3).finish();
    expect(wakes).toBeGreaterThan(before);
    expect(tape.pump()).toContain("lost 1");
  });
});

describe("ResumeTrack bounds", () => {
  it("prunes to the segment bound and the pruned floor still sets the boundary", () => {
    const { resume, copy } = setup();
    for (let i = 0; i < 6; i++) {
      const source = copy(`s${String(i)}`);
      resume.takeover(source);
      source.createGroup(i).finish();
      source.finish();
    }
    expect(resume.segments.length).toBeLessThanOrEqual(MAX_SEGMENTS);
    expect(resume.takeover(copy("next")).boundary).toEqual({ group: 6, frame: 0 });
  });

  it("a reader that misses more takeovers than the bound still gets every group", () => {
    const { resume, copy } = setup();
    const tape = new Tape(resume.subscribe({ start: 0 }));
    for (let i = 0; i < 8; i++) {
      const source = copy(`s${String(i)}`);
      resume.takeover(source);
      source.createGroup(i).finish();
      source.drop();
    }
    tape.pump();
    expect(tape.handed).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("a slow reader drains a pruned live copy", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(0).finish();
    for (let i = 1; i < 6; i++) {
      const source = copy(`s${String(i)}`);
      resume.takeover(source);
      source.createGroup(i).finish();
      source.finish();
    }
    a.finish();
    tape.pump();
    expect(tape.handed).toEqual([0, 1, 2, 3, 4, 5]);
    expect(tape.reader.cursors).toBeLessThanOrEqual(MAX_SEGMENTS + 3);
  });

  it("releases an idle track after the linger and restarts numbering unbounded", () => {
    const { clock, resume, copy } = setup({ lingerMs: 1000 });
    const a = copy("a");
    resume.takeover(a);
    for (let i = 0; i < 5; i++) a.createGroup(i).finish();
    const reader = resume.subscribe();
    reader.close();
    clock.advance(999);
    expect(resume.releaseIfIdle()).toBe(false);
    clock.advance(1);
    expect(resume.releaseIfIdle()).toBe(true);
    const b = copy("b");
    expect(resume.takeover(b).boundary).toBeUndefined();
    const tape = new Tape(resume.subscribe({ start: 0 }));
    b.createGroup(0).finish(); // restarted numbering is not filtered by the old floor
    tape.pump();
    expect(tape.handed).toEqual([0]);
  });

  it("does not release a track while a reader is attached", () => {
    const { clock, resume, copy } = setup({ lingerMs: 10 });
    resume.takeover(copy("a"));
    resume.subscribe();
    clock.advance(100);
    expect(resume.releaseIfIdle()).toBe(false);
  });

  it("a reader that outlives a release is told numbering restarted", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(0).finish();
    tape.pump();
    resume.release();
    const b = copy("b");
    resume.takeover(b);
    b.createGroup(0).finish();
    expect(tape.pump()).toEqual(["restarted", "+0", "0."]);
  });

  it("readers of one resumed track read independently", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const first = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(0).finish();
    first.pump();
    const second = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(1).finish();
    second.pump();
    expect([first.handed, second.handed]).toEqual([[0], [0, 1]]);
  });
});

describe("ResumeTrack fetch", () => {
  it("routes a fetch to the newest segment holding the group", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.switch(a, 0);
    fill(a.createGroup(0), "a").finish();
    const b = copy("b");
    resume.takeover(b);
    expect(resume.fetch(0)).toBe(a.group(0));
    expect(resume.fetch(1)).toBeUndefined();
  });

  it("fails a fetch over to another copy when the newest one lost the group", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    fill(a.createGroup(0), "x");
    const b = copy("b");
    resume.takeover(b);
    const copyB = fill(b.createGroup(0, { firstFrame: 1 }), "y");
    expect(resume.fetch(0)).toBe(copyB);
    b.clear();
    expect(resume.fetch(0)).toBe(a.group(0));
  });
});
