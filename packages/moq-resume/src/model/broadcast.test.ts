import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { Broadcast } from "./broadcast.js";
import { ClosedError } from "./errors.js";

describe("Broadcast", () => {
  it("returns the same track for the same name", () => {
    const broadcast = new Broadcast("demo/bbb", { clock: new ManualClock() });
    expect(broadcast.createTrack("video")).toBe(broadcast.createTrack("video"));
    expect(broadcast.trackNames).toEqual(["video"]);
  });

  it("finishes every track when closed, and refuses new ones", () => {
    const broadcast = new Broadcast("demo/bbb", { clock: new ManualClock() });
    const track = broadcast.createTrack("video");
    broadcast.close();
    expect(track.terminal()).toEqual({ kind: "finished" });
    expect(() => broadcast.createTrack("audio")).toThrow(ClosedError);
  });

  it("aborts every track when closed with a reason", () => {
    const broadcast = new Broadcast("demo/bbb", { clock: new ManualClock() });
    const track = broadcast.createTrack("video");
    broadcast.close(5);
    expect(track.terminal()).toEqual({ kind: "aborted", reason: 5 });
  });
});
