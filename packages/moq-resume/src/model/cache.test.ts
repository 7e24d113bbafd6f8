import { describe, expect, it } from "vitest";
import { GroupCache } from "./cache.js";
import { Group } from "./group.js";

describe("GroupCache", () => {
  it("evicts the oldest arrival beyond the count bound", () => {
    const cache = new GroupCache({ maxGroups: 2 });
    const first = new Group(5);
    cache.insert(first);
    cache.insert(new Group(1));
    cache.insert(new Group(9));
    expect([first.state, cache.get(5), cache.size]).toEqual(["evicted", undefined, 2]);
  });

  it("evicts groups older than the age bound", () => {
    const cache = new GroupCache({ maxAgeMs: 100 });
    cache.insert(new Group(0, { createdAt: 0 }));
    cache.insert(new Group(1, { createdAt: 50 }));
    expect(cache.expire(120)).toBe(1);
    expect(cache.get(1)).toBeDefined();
  });

  it("keeps evicted entries in the arrival log for lagging cursors, within a bound", () => {
    const cache = new GroupCache({ maxGroups: 1 });
    for (let seq = 0; seq < 500; seq++) cache.insert(new Group(seq));
    expect(cache.arrival(cache.arrivalEnd - 2)?.item.lost).toBe(true);
    expect(cache.arrivalEnd - cache.arrivalStart).toBeLessThanOrEqual(1 + 64 + 32);
  });
});
