import { describe, expect, it } from "vitest";
import { SegmentBoundsError, SegmentCursor, SegmentList } from "./segments.js";
import { drain, Source, type Item } from "./segments.test-helpers.js";

describe("SegmentList retained segments", () => {
  it("keeps a pruned segment readable by cursors and lookups until it is released", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 1, 3);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0, maxRetired: 0 });
    drain(cursor);
    list.switch(new Source().push(4), 4);
    list.retain(list.prune(1));
    expect(list.retained.map((s) => s.source)).toEqual([a]);
    a.push(2); // a straggler lands on the retained copy
    expect(drain(cursor)).toEqual(["2", "4"]);
    expect(list.find(3)?.item).toBe(a.get(3));
    expect(list.releaseRetained(() => false).map((s) => s.source)).toEqual([a]);
    expect([list.retained.length, list.find(3)]).toEqual([0, undefined]);
  });

  it("caps a retained segment that was the open-ended tail where its successor stops", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0), undefined);
    const cache = new Source().push(0);
    const { replaced } = list.park(cache);
    list.retain(replaced);
    list.switch(new Source(), 1);
    expect(list.retained.map((s) => s.end)).toEqual([0]);
  });

  it("a takeover from an older incomplete item starts there and keeps the previous range", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1), undefined);
    const next = list.takeover(new Source(), true, 0);
    expect(list.segments.map((s) => [s.start, s.end])).toEqual([
      [undefined, 1],
      [0, undefined],
    ]);
    expect(next.start).toBe(0);
    expect(() => list.switch(new Source(), 2, { previousEnd: 0 })).toThrow(SegmentBoundsError);
  });

  it("a fold replaces a dead held copy with the live one the folded lane holds", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 1);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0, end: 0, maxRetired: 0 });
    expect(drain(cursor)).toEqual(["0"]); // 1 is held above the cap, pinned to a's copy
    const cache = new Source().push(1);
    list.park(cache);
    a.evict(1); // the pinned copy dies
    list.switch(new Source().push(2), 2);
    list.prune(1); // the cache lane is released and, past the bound, folded
    cursor.setEnd(undefined);
    expect(drain(cursor)).toEqual(["1", "2"]);
  });
});
