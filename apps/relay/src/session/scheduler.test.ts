import { describe, expect, it } from "vitest";
import { compareScheduled, victim } from "./scheduler.js";

describe("outbound group scheduling", () => {
  it("sends higher priority groups first", () => {
    const items = [
      { priority: 1, sequence: 0, order: 0 },
      { priority: 9, sequence: 5, order: 1 },
    ];
    expect([...items].sort(compareScheduled)[0]?.priority).toBe(9);
  });

  it("sends older groups first within a priority", () => {
    const items = [
      { priority: 2, sequence: 7, order: 0 },
      { priority: 2, sequence: 3, order: 1 },
    ];
    expect([...items].sort(compareScheduled).map((i) => i.sequence)).toEqual([3, 7]);
  });

  it("skips the oldest group of the lowest priority when over the limit", () => {
    const items = [
      { priority: 5, sequence: 1, order: 0 },
      { priority: 0, sequence: 4, order: 1 },
      { priority: 0, sequence: 2, order: 2 },
    ];
    expect(victim(items)).toBe(items[2]);
  });

  it("has no victim when nothing is queued", () => {
    const none: { priority: number; sequence: number; order: number }[] = [];
    expect(victim(none)).toBeUndefined();
  });
});
