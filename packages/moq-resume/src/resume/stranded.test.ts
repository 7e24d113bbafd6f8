// The five paths of issue 15 that stranded a reader after several takeovers in a row, each stated
// through the public API with the default bounds: no group is left pending or reported lost while
// a copy of it is alive.
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

/** Takes over `count` times with copies that each produce one finished group and then end. */
function churn(resume: ResumeTrack, copy: (name: string) => Track, count: number, from: number): void {
  for (let i = 0; i < count; i++) {
    const source = copy(`churn${String(i)}`);
    resume.takeover(source);
    source.createGroup(from + i).finish();
    source.finish();
  }
}

describe("no reader is stranded after several takeovers in a row", () => {
  it("an open group a slow reader holds still finishes after more takeovers prune every copy of its end", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const slow = new Tape(resume.subscribe({ start: 0 }));
    const capped = resume.subscribe({ start: 0, end: 0 });
    const cappedTape = new Tape(capped);
    fill(a.createGroup(0), "x").finish();
    fill(a.createGroup(1), "0", "1");
    slow.pump();
    cappedTape.pump(); // group 1 is parked behind the cap while it is open
    a.drop();
    const b = copy("b");
    expect(resume.takeover(b).boundary).toMatchObject({ group: 1, frame: 2 });
    fill(b.createGroup(1, { firstFrame: 2 }), "2", "3").finish();
    b.finish();
    churn(resume, copy, 3, 2);
    slow.pump();
    capped.endAt(undefined);
    cappedTape.pump();
    for (const tape of [slow, cappedTape]) {
      expect(tape.text(1)).toBe("0123");
      expect(tape.endings.get(1)).toBe("end");
    }
  });

  it("a straggler landing on a live draining copy after many takeovers is still handed out", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const tape = new Tape(resume.subscribe({ start: 0 }));
    for (const seq of [0, 1, 3]) a.createGroup(seq).finish(); // group 2 is still in flight on A
    tape.pump();
    // GOAWAY handover: B takes over past the newest group; A stays alive to drain what it owes.
    resume.takeover(copy("b"));
    churn(resume, copy, 5, 4);
    tape.pump();
    a.createGroup(2).finish();
    a.finish();
    tape.pump();
    expect(tape.handed).toEqual([0, 1, 3, 4, 5, 6, 7, 8, 2]);
    expect([tape.lost, tape.lagged]).toEqual([[], 0]);
  });

  for (const how of ["failover", "park"] as const) {
    it(`the rest of an older group still in transfer at a ${how} is asked for and delivered`, () => {
      const { resume, copy } = setup();
      const a = copy("a");
      resume.takeover(a);
      const tape = new Tape(resume.subscribe({ start: 0 }));
      fill(a.createGroup(0), "0", "1"); // still arriving when group 1 opens
      fill(a.createGroup(1), "p");
      tape.pump();
      if (how === "park") resume.park();
      a.drop();
      const b = copy("b");
      const { boundary } = resume.takeover(b);
      // The new upstream is asked from the oldest incomplete group, not only the open one.
      expect(boundary).toEqual({ group: 1, frame: 1, from: 0 });
      fill(b.createGroup(0), "0", "1", "2").finish();
      fill(b.createGroup(1), "p", "q").finish();
      tape.pump();
      expect([tape.text(0), tape.text(1)]).toEqual(["012", "pq"]);
      expect([tape.endings.get(0), tape.endings.get(1)]).toEqual(["end", "end"]);
    });
  }

  it("parked groups are not reported lost while the park's cache still holds them", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const reader = resume.subscribe({ start: 0, end: 1 });
    const tape = new Tape(reader);
    for (let seq = 0; seq < 4; seq++) fill(a.createGroup(seq), `g${String(seq)}`).finish();
    tape.pump(); // groups 2 and 3 are parked behind the cap
    resume.park(); // GOAWAY park
    a.clear(); // A is torn down
    a.drop();
    churn(resume, copy, 6, 4); // six quick takeovers, the reader does not poll
    reader.endAt(undefined);
    tape.pump();
    expect(tape.lost).toEqual([]);
    expect(tape.handed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([tape.text(2), tape.text(3)]).toEqual(["g2", "g3"]);
  });

  it("the head of a group split by a handover is no gap for a reader attached all along, nor for a newcomer", () => {
    const { resume, copy } = setup();
    const a = copy("a");
    resume.takeover(a);
    const attached = new Tape(resume.subscribe({ start: 0 }));
    const g0 = fill(a.createGroup(0), "0", "1");
    const b = copy("b");
    expect(resume.takeover(b).boundary).toMatchObject({ group: 0, frame: 2 });
    fill(b.createGroup(0, { firstFrame: 2 }), "2"); // B's copy of group 0 lacks the head
    b.createGroup(1).finish();
    // A drains the group it owed and finishes: it "owes nothing" and is pruned two takeovers later.
    fill(g0, "2").finish();
    a.finish();
    b.drop();
    churn(resume, copy, 2, 2);
    expect(resume.segments.some((s) => s.source === a)).toBe(false);
    const newcomer = new Tape(resume.subscribe({ start: 0 }));
    newcomer.pump();
    resume.park(); // folds B's partial copy (base frame 2) into the attached reader's held set
    attached.pump();
    for (const tape of [attached, newcomer]) {
      expect(tape.gaps.size).toBe(0);
      expect(tape.text(0)).toBe("012");
    }
  });
});
