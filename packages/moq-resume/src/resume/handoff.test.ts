// The seed's scenarios (a moq relay PR about takeovers mid-group) and its open follow-ups.
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { fill, Tape } from "../model/tape.test-helpers.js";
import { Track } from "../model/track.js";
import { MAX_SEGMENTS, ResumeTrack } from "./resume-track.js";

function setup(options: { maxSegments?: number } = {}): { clock: ManualClock; resume: ResumeTrack; copy: (name: string) => Track } {
  const clock = new ManualClock();
  const resume = new ResumeTrack({ clock, ...options });
  return { clock, resume, copy: (name) => new Track(name, { clock }) };
}

describe("takeover and park handoffs (seed)", () => {
  it("a takeover keeps the open group head for later readers, and a reader mid-group is not handed it again", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const mid = new Tape(resume.subscribe());
    fill(a.createGroup(0), "a", "b");
    mid.pump();
    resume.park();
    const joiner = new Tape(resume.subscribe());
    a.clear();
    joiner.pump();
    const b = copy("b");
    const { boundary } = resume.takeover(b);
    expect(boundary).toEqual({ group: 0, frame: 2 });
    fill(b.createGroup(0, { firstFrame: 2 }), "c").finish();
    b.createGroup(1).finish();
    mid.pump();
    joiner.pump();
    expect(mid.handed).toEqual([0, 1]);
    expect(mid.text(0)).toBe("abc");
    expect(joiner.handed).toEqual([0, 1]);
    expect(joiner.text(0)).toBe("abc");
  });

  it("repeated parks mid-group hand the head out once, and a newcomer still gets every frame from the head", () => {
    const { resume, copy } = setup();
    let current = copy("a0");
    resume.takeover(current);
    const reader = new Tape(resume.subscribe());
    fill(current.createGroup(0), "f0");
    reader.pump();
    for (let i = 1; i <= MAX_SEGMENTS + 1; i++) {
      resume.park();
      current.drop();
      current = copy(`a${String(i)}`);
      const { boundary } = resume.takeover(current);
      expect(boundary).toEqual({ group: 0, frame: i });
      fill(current.createGroup(0, { firstFrame: i }), `f${String(i)}`);
      reader.pump();
    }
    current.group(0)?.finish();
    const newcomer = new Tape(resume.subscribe());
    reader.pump();
    newcomer.pump();
    const all = Array.from({ length: MAX_SEGMENTS + 2 }, (_, i) => `f${String(i)}`).join("");
    expect(reader.handed).toEqual([0]);
    expect(reader.text(0)).toBe(all);
    expect(newcomer.text(0)).toBe(all);
  });

  it("takeovers mid-group beyond the segment bound, without parks, keep the head for a newcomer", () => {
    const { resume, copy } = setup();
    let current = copy("a0");
    resume.takeover(current);
    fill(current.createGroup(0), "f0");
    for (let i = 1; i <= MAX_SEGMENTS + 2; i++) {
      current.drop();
      current = copy(`a${String(i)}`);
      resume.takeover(current);
      fill(current.createGroup(0, { firstFrame: i }), `f${String(i)}`);
    }
    expect(resume.segments.length).toBeLessThanOrEqual(MAX_SEGMENTS);
    current.group(0)?.finish();
    const newcomer = new Tape(resume.subscribe());
    newcomer.pump();
    expect(newcomer.text(0)).toBe(Array.from({ length: MAX_SEGMENTS + 3 }, (_, i) => `f${String(i)}`).join(""));
  });

  it("a park re-offers a group held at the cap once", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const reader = resume.subscribe({ start: 0, end: 0 });
    const tape = new Tape(reader);
    a.createGroup(0).finish();
    a.createGroup(1).finish();
    tape.pump();
    resume.park();
    resume.takeover(copy("b"));
    reader.endAt(1);
    tape.pump();
    reader.endAt(undefined);
    tape.pump();
    expect(tape.handed).toEqual([0, 1]);
  });
});

describe("open follow-ups of the seed, fixed", () => {
  for (const maxSegments of [1, MAX_SEGMENTS]) {
    it(`a capped reader across two takeovers in a row still gets its parked group when the cap rises (bound ${String(maxSegments)})`, () => {
      const { resume, copy } = setup({ maxSegments });
      const a = copy("a");
      resume.takeover(a);
      const reader = resume.subscribe({ start: 0, end: 0 });
      const tape = new Tape(reader);
      a.createGroup(0).finish();
      a.createGroup(1).finish(); // parked behind the cap
      tape.pump();
      a.drop();
      const b = copy("b");
      resume.takeover(b); // takeover to B at group 2
      tape.pump();
      fill(b.createGroup(2), "x"); // B opens group 2
      resume.park(); // B retires: its cache holds group 2, not group 1
      b.drop();
      const c = copy("c");
      resume.takeover(c); // takeover to C mid-group
      fill(c.createGroup(2, { firstFrame: 1 }), "y").finish();
      reader.endAt(2);
      tape.pump();
      expect(tape.handed).toEqual([0, 1, 2]);
      expect(tape.text(2)).toBe("xy");
    });
  }

  it("an arrival-order reader handed group 5 still gets group 3 when it arrives late and a cache holds it", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(5).finish();
    tape.pump();
    a.createGroup(3).finish(); // late
    resume.park();
    a.clear();
    resume.takeover(copy("b"));
    tape.pump();
    expect(tape.handed).toEqual([5, 3]);
  });

  it("an arrival-order reader gets a late lower group from the live copy after a takeover", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    a.createGroup(5).finish();
    tape.pump();
    resume.takeover(copy("b"));
    a.createGroup(3).finish(); // late, but inside A's range
    tape.pump();
    expect(tape.handed).toEqual([5, 3]);
  });

  it("a reader whose cursor is still pending on the dying source when the park lands is not stranded", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    fill(a.createGroup(0), "a");
    const pending = new Tape(resume.subscribe()); // attached to A, not polled yet
    resume.park();
    a.clear(); // the dying copy tears down its unfinished groups
    const b = copy("b");
    resume.takeover(b);
    fill(b.createGroup(0, { firstFrame: 1 }), "b").finish();
    pending.pump();
    expect(pending.handed).toEqual([0]);
    expect(pending.text(0)).toBe("ab");
  });

  it("a reader handed off by a park is told about a group its dying copy lost before it read it", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    a.createGroup(0).finish();
    const tape = new Tape(resume.subscribe());
    a.clear(); // evicted before the reader looked
    a.drop();
    resume.takeover(copy("b"));
    resume.park();
    expect(tape.pump()).toEqual(["lost 0"]);
  });
});
