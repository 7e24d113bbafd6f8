import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReadyLanes } from "./ready-lanes.js";
import { Lane, victim } from "./scheduler.js";

interface Item {
  readonly sequence: number;
  idle: boolean;
}

function item(sequence: number): Item {
  return { sequence, idle: false };
}

function lane(priority: number, ordered: boolean, ...sequences: number[]): Lane<Item> {
  const l = new Lane<Item>(priority, ordered);
  for (const sequence of sequences) l.add(item(sequence));
  return l;
}

/** Opens everything the lanes hold, as a flush with unlimited streams would. */
function drain(ready: ReadyLanes<Lane<Item>>): { lane: Lane<Item>; sequence: number }[] {
  const out: { lane: Lane<Item>; sequence: number }[] = [];
  for (let l = ready.peek(); l !== undefined; l = ready.peek()) {
    const item = l.next(true);
    if (item === undefined) {
      ready.delete(l);
      continue;
    }
    l.opened(item);
    out.push({ lane: l, sequence: item.sequence });
    if (l.waiting === 0) ready.delete(l);
    else ready.rotate(l);
  }
  return out;
}

describe("a lane of one subscription's groups", () => {
  it("opens the oldest waiting group next when the subscription is ordered", () => {
    expect(lane(0, true, 4, 2, 9).next(true)?.sequence).toBe(2);
  });

  it("opens the newest waiting group next when it is not ordered and streams are contended", () => {
    expect(lane(0, false, 4, 9, 2).next(true)?.sequence).toBe(9);
  });

  it("opens in arrival order while streams are not contended, ordered or not", () => {
    expect([lane(0, false, 4, 9, 2).next(false)?.sequence, lane(0, true, 4, 9, 2).next(false)?.sequence]).toEqual([2, 2]);
  });

  it("keeps every group in sequence order as they are added and removed, whatever the arrival order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 30 }), (sequences, removals) => {
        const l = new Lane<Item>(0, true);
        const items = sequences.map(item);
        for (const item of items) l.add(item);
        const alive = new Set(items);
        for (const r of removals) {
          const item = items[r % Math.max(1, items.length)];
          if (item === undefined) continue;
          l.remove(item);
          alive.delete(item);
        }
        expect(l.items.map((i) => i.sequence)).toEqual([...alive].map((i) => i.sequence).sort((a, b) => a - b));
        expect(l.items.every((i) => alive.has(i))).toBe(true);
      }),
    );
  });

  it("no longer offers an opened group, but still holds it as a drop candidate", () => {
    const l = lane(0, true, 1, 2);
    const first = l.next(true);
    if (first === undefined) throw new Error("empty lane");
    l.opened(first);
    expect([l.next(true)?.sequence, l.waiting, l.size, l.oldest]).toEqual([2, 1, 2, first]);
  });
});

describe("ready lanes", () => {
  it("opens every group of a higher priority before any of a lower one", () => {
    const ready = new ReadyLanes<Lane<Item>>();
    const low = lane(1, true, 0, 1);
    const high = lane(9, true, 5, 3);
    ready.add(low);
    ready.add(high);
    expect(drain(ready).map((g) => [g.lane.priority, g.sequence])).toEqual([
      [9, 3],
      [9, 5],
      [1, 0],
      [1, 1],
    ]);
  });

  it("serves a priority whose lanes all went idle first again once one comes back, and a lower one meanwhile", () => {
    const ready = new ReadyLanes<Lane<Item>>();
    const high = lane(9, true, 0);
    ready.add(high);
    expect(drain(ready).map((g) => g.sequence)).toEqual([0]);
    const low = lane(1, true, 20, 21);
    ready.add(low);
    expect(ready.peek()).toBe(low);
    high.add(item(1));
    ready.add(high);
    expect(drain(ready).map((g) => g.sequence)).toEqual([1, 20, 21]);
    expect([ready.size, ready.peek()]).toEqual([0, undefined]);
  });

  it("lets subscriptions of one priority take turns", () => {
    const ready = new ReadyLanes<Lane<Item>>();
    const a = lane(2, true, 0, 1, 2);
    const b = lane(2, true, 10, 11);
    ready.add(a);
    ready.add(b);
    expect(drain(ready).map((g) => g.sequence)).toEqual([0, 10, 1, 11, 2]);
  });

  it("moves a lane whose priority changed when it is added again", () => {
    const ready = new ReadyLanes<Lane<Item>>();
    const a = lane(1, true, 0);
    const b = lane(5, true, 7);
    ready.add(a);
    ready.add(b);
    a.priority = 9;
    ready.add(a);
    expect(drain(ready).map((g) => g.sequence)).toEqual([0, 7]);
    expect(ready.size).toBe(0);
  });

  it("opens any set of lanes in priority order, each lane in its own order", () => {
    const spec = fc.record({
      priority: fc.integer({ min: 0, max: 255 }),
      ordered: fc.boolean(),
      sequences: fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 5 }), (specs) => {
        const ready = new ReadyLanes<Lane<Item>>();
        const lanes = specs.map((s) => lane(s.priority, s.ordered, ...s.sequences));
        for (const l of lanes) ready.add(l);
        const opened = drain(ready);
        expect(opened).toHaveLength(specs.reduce((n, s) => n + s.sequences.length, 0));
        for (let i = 1; i < opened.length; i++) expect(opened[i - 1]?.lane.priority ?? 0).toBeGreaterThanOrEqual(opened[i]?.lane.priority ?? 0);
        specs.forEach((s, i) => {
          const own = opened.filter((g) => g.lane === lanes[i]).map((g) => g.sequence);
          const sorted = [...s.sequences].sort((a, b) => a - b);
          expect(own).toEqual(s.ordered ? sorted : sorted.reverse());
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe("the group dropped over the bound", () => {
  it("is the oldest group of the lowest priority", () => {
    const high = lane(5, false, 1);
    const low = lane(0, false, 4, 2);
    expect(victim([high, low])).toBe(low.oldest);
    expect(victim([high, low])?.sequence).toBe(2);
  });

  it("is the older of two groups at the lowest priority in different subscriptions", () => {
    const a = lane(0, true, 8);
    const b = lane(0, true, 3);
    expect(victim([a, b])?.sequence).toBe(3);
  });

  it("does not exist when nothing is queued", () => {
    expect(victim([new Lane<Item>(0, true)])).toBeUndefined();
  });
});
