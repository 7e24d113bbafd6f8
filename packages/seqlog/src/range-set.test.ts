import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RangeSet } from "./range-set.js";
import { SeqRangeError } from "./seq.js";

describe("RangeSet", () => {
  it("starts empty", () => {
    const set = new RangeSet();
    expect(set.isEmpty).toBe(true);
    expect(set.size).toBe(0);
    expect(set.first).toBeUndefined();
    expect(set.has(0)).toBe(false);
  });

  it("merges adjacent additions into one range", () => {
    const set = new RangeSet();
    set.add(1);
    set.add(3);
    set.add(2);
    expect(set.toJSON()).toEqual([[1, 3]]);
    expect(set.size).toBe(3);
  });

  it("reports whether an addition was new", () => {
    const set = new RangeSet();
    expect(set.add(5)).toBe(true);
    expect(set.add(5)).toBe(false);
    expect(set.addRange(3, 8)).toBe(5);
  });

  it("merges a range that spans several existing ranges", () => {
    const set = RangeSet.fromRanges([
      [0, 1],
      [4, 5],
      [9, 9],
      [20, 30],
    ]);
    expect(set.addRange(2, 10)).toBe(6);
    expect(set.toJSON()).toEqual([
      [0, 10],
      [20, 30],
    ]);
  });

  it("finds the next missing number past a run", () => {
    const set = RangeSet.fromRanges([
      [0, 4],
      [6, 6],
    ]);
    expect(set.nextMissing()).toBe(5);
    expect(set.nextMissing(6)).toBe(7);
    expect(set.nextMissing(10)).toBe(10);
  });

  it("finds the next present number", () => {
    const set = RangeSet.fromRanges([[10, 12]]);
    expect(set.nextPresent(0)).toBe(10);
    expect(set.nextPresent(11)).toBe(11);
    expect(set.nextPresent(13)).toBeUndefined();
  });

  it("knows a late lower number was never handed out although a higher one was", () => {
    const handed = new RangeSet();
    handed.add(5);
    expect(handed.has(3)).toBe(false);
    expect(handed.last).toBe(5);
  });

  it("splits a range when a number in its middle is deleted", () => {
    const set = RangeSet.fromRanges([[0, 9]]);
    expect(set.delete(4)).toBe(true);
    expect(set.toJSON()).toEqual([
      [0, 3],
      [5, 9],
    ]);
    expect(set.delete(4)).toBe(false);
    expect(set.size).toBe(9);
  });

  it("lists the gaps inside a window", () => {
    const set = RangeSet.fromRanges([
      [2, 3],
      [6, 7],
    ]);
    expect([...set.gaps(0, 9)]).toEqual([
      [0, 1],
      [4, 5],
      [8, 9],
    ]);
    expect([...set.gaps(2, 3)]).toEqual([]);
  });

  it("compacts everything below a floor into one range", () => {
    const set = RangeSet.fromRanges([
      [1, 1],
      [3, 4],
      [8, 9],
    ]);
    set.compact(6);
    expect(set.toJSON()).toEqual([
      [0, 5],
      [8, 9],
    ]);
    expect(set.rangeCount).toBe(2);
  });

  it("checks whole ranges", () => {
    const set = RangeSet.fromRanges([[3, 9]]);
    expect(set.hasRange(4, 9)).toBe(true);
    expect(set.hasRange(2, 4)).toBe(false);
    expect(set.hasRange(9, 10)).toBe(false);
  });

  it("refuses numbers that are not safe non-negative integers", () => {
    const set = new RangeSet();
    expect(() => set.add(-1)).toThrow(SeqRangeError);
    expect(() => set.add(2 ** 53)).toThrow(SeqRangeError);
    expect(() => set.addRange(1.5, 3)).toThrow(SeqRangeError);
  });

  it("copies independently and compares by content", () => {
    const set = RangeSet.fromRanges([[1, 2]]);
    const copy = set.clone();
    copy.add(7);
    expect(set.equals(copy)).toBe(false);
    set.add(7);
    expect(set.equals(copy)).toBe(true);
    expect(set.toString()).toBe("{1-2, 7}");
  });

  it("unions another set", () => {
    const a = RangeSet.fromRanges([[0, 2]]);
    const b = RangeSet.fromRanges([
      [2, 4],
      [8, 8],
    ]);
    expect(a.union(b)).toBe(3);
    expect(a.toJSON()).toEqual([
      [0, 4],
      [8, 8],
    ]);
  });
});

type Op = { kind: "add"; n: number } | { kind: "addRange"; start: number; len: number } | { kind: "delete"; n: number } | { kind: "compact"; floor: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), n: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant("addRange" as const), start: fc.integer({ min: 0, max: 60 }), len: fc.integer({ min: 0, max: 10 }) }),
  fc.record({ kind: fc.constant("delete" as const), n: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant("compact" as const), floor: fc.integer({ min: 0, max: 30 }) }),
);

describe("RangeSet against a plain Set", () => {
  it("agrees on membership, size, next missing and range shape after any sequence of operations", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const set = new RangeSet();
        const model = new Set<number>();
        for (const o of ops) {
          switch (o.kind) {
            case "add":
              expect(set.add(o.n)).toBe(!model.has(o.n));
              model.add(o.n);
              break;
            case "addRange": {
              let fresh = 0;
              for (let n = o.start; n <= o.start + o.len; n++) {
                if (!model.has(n)) fresh++;
                model.add(n);
              }
              expect(set.addRange(o.start, o.start + o.len)).toBe(fresh);
              break;
            }
            case "delete":
              expect(set.delete(o.n)).toBe(model.has(o.n));
              model.delete(o.n);
              break;
            case "compact":
              set.compact(o.floor);
              for (let n = 0; n < o.floor; n++) model.add(n);
              break;
          }
        }
        expect(set.size).toBe(model.size);
        for (let n = 0; n <= 75; n++) {
          expect(set.has(n)).toBe(model.has(n));
          let missing = n;
          while (model.has(missing)) missing++;
          expect(set.nextMissing(n)).toBe(missing);
        }
        expect([...set.values()]).toEqual([...model].sort((a, b) => a - b));
        // ranges are sorted, disjoint and never adjacent (else they would have been merged)
        const ranges = set.toJSON();
        for (let i = 1; i < ranges.length; i++) {
          const prev = ranges[i - 1];
          const cur = ranges[i];
          expect(prev !== undefined && cur !== undefined && prev[1] + 1 < cur[0]).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
