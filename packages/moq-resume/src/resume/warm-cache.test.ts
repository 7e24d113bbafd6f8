import { ManualClock, SegmentList } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import type { Group } from "../model/group.js";
import { fill } from "../model/tape.test-helpers.js";
import { Track } from "../model/track.js";
import { warmCache } from "./warm-cache.js";

const decoder = new TextDecoder();

describe("warmCache", () => {
  it("stitches a group split by a mid-group takeover back together from its copies", () => {
    const list = new SegmentList<Track, Group>();
    const a = new Track("a", { clock: new ManualClock() });
    list.switch(a, undefined);
    fill(a.createGroup(0), "x", "y");
    const b = new Track("b", { clock: new ManualClock() });
    list.takeover(b, true);
    fill(b.createGroup(0, { firstFrame: 2 }), "z").finish();
    const cache = warmCache(list.segments, { name: "cache", clock: new ManualClock() });
    const group = cache.group(0);
    const text = [0, 1, 2].map((i) => decoder.decode(group?.frame(i))).join("");
    expect([text, group?.finished]).toEqual(["xyz", true]);
  });

  it("leaves an open group open but sealed, for the next copy to continue", () => {
    const list = new SegmentList<Track, Group>();
    const a = new Track("a", { clock: new ManualClock() });
    list.switch(a, undefined);
    fill(a.createGroup(0), "x");
    const group = warmCache(list.segments, { name: "cache", clock: new ManualClock() }).group(0);
    expect([group?.state, group?.sealed]).toEqual(["open", true]);
  });

  it("skips groups outside a segment's range and groups already lost", () => {
    const list = new SegmentList<Track, Group>();
    const a = new Track("a", { clock: new ManualClock() });
    list.switch(a, undefined);
    a.createGroup(0).finish();
    a.createGroup(1).finish();
    list.switch(new Track("b", { clock: new ManualClock() }), 2);
    a.createGroup(2).finish(); // past A's end
    a.group(0)?.evict();
    const cache = warmCache(list.segments, { name: "cache", clock: new ManualClock() });
    expect([...cache.groups()].map((g) => g.sequence)).toEqual([1]);
  });
});
