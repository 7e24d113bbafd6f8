import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SegmentBoundsError, SegmentCursor, SegmentList } from "./segments.js";
import { drain, Source, type Item } from "./segments.test-helpers.js";


describe("SegmentList", () => {
  it("caps the previous segment just below a switch", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1), undefined);
    list.switch(new Source(), 2);
    expect(list.segments.map((s) => [s.start, s.end])).toEqual([
      [undefined, 1],
      [2, undefined],
    ]);
  });

  it("rejects a switch that does not advance the boundary", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(3), 3);
    expect(() => list.switch(new Source(), 3)).toThrow(SegmentBoundsError);
  });

  it("replaces a run of segments that never produced", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source(), undefined);
    list.switch(new Source(), 5);
    const b = new Source();
    list.switch(b, 7);
    expect(list.segments).toHaveLength(1);
    expect(list.segments[0]?.start).toBeUndefined();
  });

  it("starts a takeover past the newest produced item, or at it when reopening", () => {
    const list = new SegmentList<Source, Item>();
    expect(list.takeover(new Source().push(0, 1)).start).toBeUndefined();
    expect(list.takeover(new Source().push(2)).start).toBe(2);
    const reopened = list.takeover(new Source(), true);
    expect([reopened.start, list.segments[1]?.end]).toEqual([2, 2]);
  });

  it("prunes to the bound and keeps the pruned end as the boundary floor", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 1);
    list.switch(a, undefined);
    for (let seq = 2; seq < 6; seq++) list.switch(new Source().push(seq), seq);
    a.closed = true;
    for (const s of list.segments) s.source.closed = true;
    list.prune(3);
    expect(list.segments).toHaveLength(3);
    expect(list.prunedFloor).toBe(2);
  });

  it("parks the front segments into a cache that keeps their range", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0), undefined);
    list.switch(new Source().push(1), 1);
    list.switch(new Source().push(2), 2);
    const { segment, replaced } = list.park(new Source().push(0, 1), 2);
    expect([segment.start, segment.end, replaced.length, list.segments.length]).toEqual([undefined, 1, 2, 2]);
  });

  it("clamps a source's latest item to its segment's range", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 1);
    list.switch(a, undefined);
    list.switch(new Source(), 2);
    a.push(9); // past its cap: does not move the boundary
    expect(list.latest()).toBe(1);
  });

  it("runs observers synchronously on every change", () => {
    const list = new SegmentList<Source, Item>();
    const seen: number[] = [];
    const stop = list.observe(() => seen.push(list.segments.length));
    list.switch(new Source().push(0), undefined);
    list.switch(new Source(), 1);
    stop();
    list.release();
    expect(seen).toEqual([1, 2]);
  });

  it("resets the floor and era on release", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 9), undefined);
    list.release();
    expect([list.era, list.latest(), list.segments.length]).toEqual([1, undefined, 0]);
  });
});

describe("SegmentCursor", () => {
  it("hands items across a switch once each", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 1, 2);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    expect(drain(cursor)).toEqual(["0", "1", "2"]);
    list.switch(new Source().push(2, 3), 3);
    a.push(3);
    expect(drain(cursor)).toEqual(["3"]);
  });

  it("says whether a whole range is settled, without copying the settled set", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 2);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    drain(cursor);
    expect([cursor.isSettledRange(0, 0), cursor.isSettledRange(0, 2)]).toEqual([true, false]);
    a.push(1);
    drain(cursor);
    expect(cursor.isSettledRange(0, 2)).toBe(true);
  });

  it("starts a cursor without a start at the newest item (the live edge)", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1, 2), undefined);
    expect(drain(new SegmentCursor(list))).toEqual(["2"]);
  });

  it("hands out a lower item that arrives after a higher one", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(5);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    expect(drain(cursor)).toEqual(["5"]);
    a.push(3);
    expect(drain(cursor)).toEqual(["3"]);
  });

  it("skips a late lower item in sequence order", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(5);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    expect(cursor.next("sequence")).toMatchObject({ kind: "item", seq: 5 });
    a.push(3);
    expect(cursor.next("sequence").kind).toBe("none");
  });

  it("holds items above the cap and re-offers them when it rises", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1, 2), undefined);
    const cursor = new SegmentCursor(list, { start: 0, end: 0 });
    expect(drain(cursor)).toEqual(["0"]);
    cursor.setEnd(2);
    expect(drain(cursor)).toEqual(["1", "2"]);
  });

  it("reports a held item lost when its holder evicts it", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0, 1);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0, end: 0 });
    expect(drain(cursor)).toEqual(["0"]);
    a.evict(1);
    expect(drain(cursor)).toEqual(["lost 1"]);
  });

  it("reports lagged when the source forgot arrivals before they were scanned", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source(2);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    a.push(0, 1, 2, 3);
    expect(drain(cursor)).toEqual(["lagged", "2", "3"]);
  });

  it("hands off from replaced segments to a park's cache without repeating", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1), undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    expect(cursor.next()).toMatchObject({ seq: 0 });
    list.park(new Source().push(0, 1));
    expect(drain(cursor)).toEqual(["1"]);
  });

  it("keeps held items of a pruned segment that the cache does not hold", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0, end: 0 });
    drain(cursor);
    a.push(1);
    expect(drain(cursor)).toEqual([]);
    list.switch(new Source().push(2), 2);
    drain(cursor);
    list.park(new Source().push(2));
    cursor.setEnd(5);
    expect(drain(cursor)).toEqual(["1", "2"]);
  });

  it("resets with a restarted signal after a release", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1), undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    drain(cursor);
    list.release();
    list.switch(new Source().push(0), undefined);
    expect(drain(cursor)).toEqual(["restarted", "0"]);
  });

  it("sees a segment that was added and pruned between two reads", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0), undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    const b = new Source().push(1);
    list.switch(b, 1);
    list.switch(new Source().push(2), 2);
    b.closed = true;
    for (const s of list.segments) s.source.closed = true;
    list.prune(1);
    expect(drain(cursor)).toEqual(["0", "1", "2"]);
  });

  it("folds the oldest retired lane into held items beyond the retired bound, losing nothing", () => {
    const list = new SegmentList<Source, Item>();
    const first = new Source().push(0, 1);
    list.switch(first, undefined);
    const cursor = new SegmentCursor(list, { start: 0, maxRetired: 1 });
    for (let seq = 2; seq < 6; seq++) {
      list.switch(new Source().push(seq), seq);
      list.prune(1);
    }
    expect(cursor.laneCount).toBeLessThanOrEqual(2);
    expect(drain(cursor)).toEqual(["0", "1", "2", "3", "4", "5"]);
  });

  it("reports the highest held item lost when the held bound is hit", () => {
    const list = new SegmentList<Source, Item>();
    list.switch(new Source().push(0, 1, 2, 3), undefined);
    const cursor = new SegmentCursor(list, { start: 0, end: 0, maxHeld: 2 });
    expect(drain(cursor)).toEqual(["0", "lost 3"]);
    cursor.setEnd(undefined);
    expect(drain(cursor)).toEqual(["1", "2"]);
  });

  it("unregisters from the list when closed", () => {
    const list = new SegmentList<Source, Item>();
    const cursor = new SegmentCursor(list);
    cursor.close();
    expect(list.observers).toBe(0);
  });

  it("drops drained lanes of closed pruned segments", () => {
    const list = new SegmentList<Source, Item>();
    const a = new Source().push(0);
    list.switch(a, undefined);
    const cursor = new SegmentCursor(list, { start: 0 });
    for (let seq = 1; seq < 5; seq++) list.switch(new Source().push(seq), seq);
    drain(cursor);
    for (const s of list.segments) s.source.closed = true;
    a.closed = true;
    list.prune(1);
    drain(cursor);
    expect(cursor.laneCount).toBe(1);
  });

  it("never hands an item twice and never drops one silently, over random switches and parks", () => {
    type Op =
      | { op: "push"; seq: number }
      | { op: "switch" }
      | { op: "park" }
      | { op: "prune" }
      | { op: "read" }
      | { op: "cap"; end: number | undefined };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant("push" as const), seq: fc.integer({ min: 0, max: 30 }) }),
      fc.constant({ op: "switch" as const }),
      fc.constant({ op: "park" as const }),
      fc.constant({ op: "prune" as const }),
      fc.constant({ op: "read" as const }),
      fc.record({ op: fc.constant("cap" as const), end: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }) }),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const list = new SegmentList<Source, Item>();
        let current = new Source();
        list.switch(current, undefined);
        const cursor = new SegmentCursor(list, { start: 0 });
        const handed: number[] = [];
        const lost: number[] = [];
        const pushed = new Set<number>();
        const read = (): void => {
          for (let step = cursor.next(); step.kind !== "none"; step = cursor.next()) {
            if (step.kind === "item") handed.push(step.seq);
            if (step.kind === "lost") lost.push(step.seq);
          }
        };
        for (const op of ops) {
          switch (op.op) {
            case "push":
              // Sources only receive items in their own range: the upstream copy was asked for it.
              if (list.tail?.start === undefined || op.seq >= list.tail.start) {
                current.push(op.seq);
                pushed.add(op.seq);
              }
              break;
            case "switch":
              current = new Source();
              list.takeover(current);
              break;
            case "park": {
              const cache = new Source();
              for (const segment of list.segments)
                for (let i = segment.source.arrivalStart; i < segment.source.arrivalEnd; i++) {
                  const entry = segment.source.arrival(i);
                  if (entry && (segment.start === undefined || entry.seq >= segment.start) && !cache.get(entry.seq))
                    cache.push(entry.seq);
                }
              list.park(cache);
              current = new Source();
              list.takeover(current);
              break;
            }
            case "prune":
              for (const segment of list.segments) if (segment.source !== current) segment.source.closed = true;
              list.prune(2);
              break;
            case "read":
              read();
              break;
            case "cap":
              cursor.setEnd(op.end);
              break;
          }
        }
        cursor.setEnd(undefined);
        read();
        expect(new Set(handed).size).toBe(handed.length);
        for (const seq of pushed) expect(handed.includes(seq) || lost.includes(seq)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
