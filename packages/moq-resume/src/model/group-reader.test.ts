import { describe, expect, it } from "vitest";
import { frame } from "./testing.js";
import { Track } from "./track.js";

function firstGroupFrames(track: Track) {
  const event = track.subscribe({ start: 0 }).recvGroup();
  if (event.kind !== "group") throw new Error(`no group: ${event.kind}`);
  return [event.group.readFrame(), event.group.readFrame(), event.group.readFrame()];
}

describe("GroupReader", () => {
  it("hands out each frame with the timestamp it was written with", () => {
    const track = new Track("video");
    const group = track.appendGroup();
    group.write(frame("a"), 1000);
    group.write(frame("b"), 1033);
    const [a, b, rest] = firstGroupFrames(track);
    expect([a, b].map((e) => (e?.kind === "frame" ? e.timestamp : "none"))).toEqual([1000, 1033]);
    expect(rest).toEqual({ kind: "pending" });
  });

  it("hands out an undefined timestamp for a frame written without one", () => {
    const track = new Track("video");
    track.appendGroup().write(frame("a"));
    const [a] = firstGroupFrames(track);
    expect(a).toMatchObject({ kind: "frame", index: 0, timestamp: undefined });
  });
});
