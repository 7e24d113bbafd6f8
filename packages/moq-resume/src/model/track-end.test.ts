import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import type { TrackTerminal } from "./feed.js";
import { Track } from "./track.js";

const track = (): Track => new Track("t", { clock: new ManualClock() });

describe("Track.onEnd", () => {
  it("is not called by groups, frames or evictions, only once by the end, with how it ended", () => {
    const copy = track();
    const ends: TrackTerminal[] = [];
    copy.onEnd((terminal) => ends.push(terminal));
    const group = copy.createGroup(0);
    group.write(Uint8Array.of(1));
    group.finish();
    copy.evictOldest();
    expect(ends).toEqual([]);
    copy.abort(7);
    copy.finish();
    expect(ends).toEqual([{ kind: "aborted", reason: 7 }]);
  });

  it("tells every kind of end", () => {
    const kinds = (["finish", "abort", "drop"] as const).map((end) => {
      const copy = track();
      let told: TrackTerminal | undefined;
      copy.onEnd((terminal) => (told = terminal));
      copy[end]();
      return told?.kind;
    });
    expect(kinds).toEqual(["finished", "aborted", "dropped"]);
  });

  it("comes after the wake-ups of the same change", () => {
    const copy = track();
    const order: string[] = [];
    copy.onEnd(() => order.push("end"));
    copy.watch(() => order.push("watch"));
    copy.drop();
    expect(order).toEqual(["watch", "end"]);
  });

  it("is not called once removed, nor for a track that had already ended", () => {
    const copy = track();
    let calls = 0;
    const remove = copy.onEnd(() => (calls += 1));
    remove();
    copy.finish();
    copy.onEnd(() => (calls += 1))();
    copy.onEnd(() => (calls += 1));
    expect(calls).toBe(0);
  });

  it("does not tell a listener that an earlier one removed", () => {
    const copy = track();
    const told: string[] = [];
    let removeSecond = (): void => undefined;
    copy.onEnd(() => {
      told.push("first");
      removeSecond();
    });
    removeSecond = copy.onEnd(() => told.push("second"));
    copy.finish();
    expect(told).toEqual(["first"]);
  });
});
