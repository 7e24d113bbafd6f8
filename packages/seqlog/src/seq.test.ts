import { describe, expect, it } from "vitest";
import { MAX_SEQ, SeqCounter, SeqRangeError, checkSeq, isSeq } from "./seq.js";

describe("isSeq", () => {
  it("accepts zero and the largest safe integer", () => {
    expect(isSeq(0)).toBe(true);
    expect(isSeq(MAX_SEQ)).toBe(true);
  });

  it("refuses negatives, fractions, NaN, infinities and values past 2^53 - 1", () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_SEQ + 1, 2 ** 60]) {
      expect(isSeq(bad)).toBe(false);
    }
  });
});

describe("checkSeq", () => {
  it("returns a valid value unchanged", () => {
    expect(checkSeq(42)).toBe(42);
  });

  it("throws a SeqRangeError naming the value", () => {
    expect(() => checkSeq(-3, "group")).toThrow(SeqRangeError);
    expect(() => checkSeq(-3, "group")).toThrow(/group out of range: -3/);
  });
});

describe("SeqCounter", () => {
  it("hands out consecutive numbers from its start", () => {
    const counter = new SeqCounter(7);
    expect([counter.next(), counter.next(), counter.next()]).toEqual([7, 8, 9]);
    expect(counter.peek).toBe(10);
  });

  it("refuses to pass 2^53 - 1 instead of repeating a number", () => {
    const counter = new SeqCounter(MAX_SEQ);
    expect(counter.next()).toBe(MAX_SEQ);
    expect(() => counter.next()).toThrow(SeqRangeError);
  });

  it("moves forward to a floor learnt elsewhere but never backwards", () => {
    const counter = new SeqCounter(10);
    counter.advanceTo(5);
    expect(counter.peek).toBe(10);
    counter.advanceTo(20);
    expect(counter.next()).toBe(20);
  });

  it("refuses an invalid start", () => {
    expect(() => new SeqCounter(-1)).toThrow(SeqRangeError);
  });
});
