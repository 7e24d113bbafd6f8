import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { frame } from "./tape.test-helpers.js";
import { Track } from "./track.js";

function firstGroupFrames(track: Track) {
  const event = track.subscribe({ start: 0 }).recvGroup();
  if (event.kind !== "group") throw new Error(`no group: ${event.kind}`);
  return [event.group.readFrame(), event.group.readFrame(), event.group.readFrame()];
}

describe("GroupReader", () => {
  it("hands out each frame with the timestamp it was written with", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.appendGroup();
    group.write(frame("a"), 1000);
    group.write(frame("b"), 1033);
    const [a, b, rest] = firstGroupFrames(track);
    expect([a, b].map((e) => (e?.kind === "frame" ? e.timestamp : "none"))).toEqual([1000, 1033]);
    expect(rest).toEqual({ kind: "pending" });
  });

  it("hands out an undefined timestamp for a frame written without one", () => {
    const track = new Track("video", { clock: new ManualClock() });
    track.appendGroup().write(frame("a"));
    const [a] = firstGroupFrames(track);
    expect(a).toMatchObject({ kind: "frame", index: 0, timestamp: undefined });
  });

  it("hands every reader of a group the same frame object (a relay's subscribers share it)", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.appendGroup();
    group.write(frame("a"), 7);
    const first = firstGroupFrames(track);
    const second = firstGroupFrames(track);
    expect(first[0]).toMatchObject({ kind: "frame", index: 0, timestamp: 7 });
    expect(second[0]).toBe(first[0]);
  });
});

describe("GroupReader.datagramFrame", () => {
  function reader(track: Track) {
    const event = track.subscribe({ start: 0 }).recvGroup();
    if (event.kind !== "group") throw new Error(`no group: ${event.kind}`);
    return event.group;
  }

  it("gives the one frame of a group filed whole from a datagram (readers woken once, when it is complete)", () => {
    const track = new Track("audio", { clock: new ManualClock() });
    let woken = 0;
    track.watch(() => (woken += 1));
    const group = track.createDatagramGroup(4, frame("a"), 90);
    expect([group.datagram, group.finished, group.frameEnd, woken]).toEqual([true, true, 1, 1]);
    const got = reader(track).datagramFrame();
    expect(got?.timestamp).toBe(90);
    expect(new TextDecoder().decode(got?.payload)).toBe("a");
  });

  it("gives nothing for a stream group, an open datagram group, or one already read from", () => {
    const stream = new Track("audio", { clock: new ManualClock() });
    const plain = stream.createGroup(0);
    plain.write(frame("a"));
    plain.finish();
    expect(reader(stream).datagramFrame()).toBeUndefined();
    const open = new Track("audio", { clock: new ManualClock() });
    open.createGroup(0, { datagram: true }).write(frame("a"));
    expect(reader(open).datagramFrame()).toBeUndefined();
    const read = new Track("audio", { clock: new ManualClock() });
    read.createDatagramGroup(0, frame("a"));
    const r = reader(read);
    r.readFrame();
    expect(r.datagramFrame()).toBeUndefined();
  });
});

describe("GroupReader.skipTo", () => {
  it("starts the read at a frame without waiting for the ones below it, and never moves back", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.createGroup(0, { firstFrame: 2 });
    group.write(frame("c"));
    const event = track.subscribe({ start: 0 }).recvGroup();
    if (event.kind !== "group") throw new Error(`no group: ${event.kind}`);
    const reader = event.group;
    reader.skipTo(2);
    reader.skipTo(1);
    expect(reader.position).toBe(2);
    expect(reader.readFrame()).toMatchObject({ kind: "frame", index: 2 });
    group.finish();
    expect(reader.readFrame()).toEqual({ kind: "end" });
  });
});
