import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { fill, Tape } from "./tape.test-helpers.js";
import { Track } from "./track.js";

describe("TrackReader", () => {
  it("reads groups and frames in order", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0 }));
    fill(track.appendGroup(), "a", "b").finish();
    expect(tape.pump()).toEqual(["+0", "0:a", "0:b", "0."]);
  });

  it("starts a live-edge reader at the newest group, from its first frame", () => {
    const track = new Track("video", { clock: new ManualClock() });
    fill(track.appendGroup(), "a").finish();
    fill(track.appendGroup(), "b", "c");
    expect(new Tape(track.subscribe()).pump()).toEqual(["+1", "1:b", "1:c"]);
  });

  it("hands a late lower group out in arrival order", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0 }));
    track.createGroup(5).finish();
    tape.pump();
    track.createGroup(3).finish();
    expect(tape.pump()).toEqual(["+3", "3."]);
  });

  it("skips a late lower group in sequence order", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0 }), "next");
    track.createGroup(5).finish();
    tape.pump();
    track.createGroup(3).finish();
    expect(tape.pump()).toEqual([]);
  });

  it("parks groups above the cap and re-offers them when the cap rises", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const reader = track.subscribe({ start: 0, end: 0 });
    const tape = new Tape(reader);
    for (let i = 0; i < 3; i++) track.appendGroup().finish();
    expect(tape.handed).toEqual([]);
    tape.pump();
    reader.endAt(2);
    tape.pump();
    expect(tape.handed).toEqual([0, 1, 2]);
  });

  it("does not let a parked group block in-range groups that arrive behind it", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0, end: 1 }));
    track.createGroup(4).finish();
    track.createGroup(1).finish();
    tape.pump();
    expect(tape.handed).toEqual([1]);
  });

  it("wakes a capped reader with a loss when its parked group is evicted", () => {
    const track = new Track("video", { clock: new ManualClock(), maxGroups: 1 });
    const reader = track.subscribe({ start: 0, end: 0 });
    const tape = new Tape(reader);
    let wakes = 0;
    reader.watch(() => (wakes += 1));
    track.appendGroup().finish();
    track.appendGroup().finish();
    tape.pump();
    track.appendGroup().finish();
    expect(wakes).toBeGreaterThan(0);
    expect(tape.pump()).toContain("lost 1");
  });

  it("drops parked groups below a raised start", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const reader = track.subscribe({ start: 0, end: 0 });
    const tape = new Tape(reader);
    for (let i = 0; i < 3; i++) track.appendGroup().finish();
    tape.pump();
    reader.startAt(2);
    reader.endAt(undefined);
    tape.pump();
    expect(tape.handed).toEqual([0, 2]);
  });

  it("reports a group evicted before it was read as lost", () => {
    const clock = new ManualClock();
    const track = new Track("video", { clock, maxAgeMs: 10 });
    const tape = new Tape(track.subscribe({ start: 0 }));
    track.appendGroup().finish();
    clock.advance(20);
    track.expire();
    expect(tape.pump()).toEqual(["lost 0"]);
  });

  it("reports the rest of a group lost when it is evicted mid-read", () => {
    const track = new Track("video", { clock: new ManualClock(), maxGroups: 1 });
    const tape = new Tape(track.subscribe({ start: 0 }));
    fill(track.appendGroup(), "a");
    tape.pump();
    track.appendGroup();
    expect(tape.pump()).toEqual(["+1", "0x"]);
  });

  it("finishes only after the reader drained every group", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0 }));
    fill(track.appendGroup(), "a").finish();
    track.finish();
    expect(tape.pump()).toEqual(["+0", "0:a", "0.", "finished"]);
  });

  it("surfaces an abort after the buffered groups", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0 }));
    fill(track.appendGroup(), "a").finish();
    track.abort(7);
    expect(tape.pump()).toEqual(["+0", "0:a", "0.", "TrackAbortedError"]);
  });

  it("surfaces a dropped producer after the buffered groups and loses its open group", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const tape = new Tape(track.subscribe({ start: 0 }));
    fill(track.appendGroup(), "a");
    track.drop();
    expect(tape.pump()).toEqual(["+0", "0:a", "0x", "TrackDroppedError"]);
  });

  it("keeps a finished track's parked groups waiting until they are evicted", () => {
    const track = new Track("video", { clock: new ManualClock(), maxGroups: 2 });
    const tape = new Tape(track.subscribe({ start: 0, end: 0 }));
    track.appendGroup().finish();
    track.appendGroup().finish();
    track.finish();
    expect(tape.pump()).toEqual(["+0", "0."]);
    track.clear();
    expect(tape.pump()).toEqual(["lost 1", "finished"]);
  });

  it("gives readers independent positions", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const a = new Tape(track.subscribe({ start: 0 }));
    track.appendGroup().finish();
    a.pump();
    const b = new Tape(track.subscribe({ start: 0 }));
    track.appendGroup().finish();
    a.pump();
    b.pump();
    expect([a.handed, b.handed]).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  it("clamps the priority of track info to a byte", () => {
    expect(new Track("t", { clock: new ManualClock(), info: { priority: 999, ordered: true } }).info).toMatchObject({ priority: 255, ordered: true });
  });
});
