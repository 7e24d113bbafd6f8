import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { covers, intersection, intersects, isValidFilter, matches, unshare } from "./topic-filter.js";

describe("matches", () => {
  it("matches a literal topic exactly", () => {
    expect([matches("a/b", "a/b"), matches("a/b", "a/c")]).toEqual([true, false]);
  });

  it("lets + stand for exactly one level, even an empty one", () => {
    expect([matches("a/+", "a/b"), matches("a/+", "a/"), matches("a/+", "a/b/c"), matches("a/+", "a")]).toEqual([true, true, false, false]);
  });

  it("lets a/# match the parent level a itself", () => {
    expect(matches("a/#", "a")).toBe(true);
  });

  it("keeps # and + at the first level away from $ topics", () => {
    expect([matches("#", "$SYS/broker/uptime"), matches("+/broker/uptime", "$SYS/broker/uptime"), matches("$SYS/#", "$SYS/broker/uptime")]).toEqual([
      false,
      false,
      true,
    ]);
  });
});

describe("covers", () => {
  it("lets # cover every ordinary filter", () => {
    expect([covers("#", "a/b"), covers("#", "+/#"), covers("#", "#")]).toEqual([true, true, true]);
  });

  it("does not let # cover $SYS filters", () => {
    expect([covers("#", "$SYS/#"), covers("+/#", "$SYS/broker/uptime")]).toEqual([false, false]);
  });

  it("lets $SYS/# cover $SYS filters", () => {
    expect(covers("$SYS/#", "$SYS/broker/+")).toBe(true);
  });

  it("does not let a/# cover #", () => {
    expect(covers("a/#", "#")).toBe(false);
  });

  it("lets a/# cover a, a/+ and a/b/#", () => {
    expect([covers("a/#", "a"), covers("a/#", "a/+"), covers("a/#", "a/b/#")]).toEqual([true, true, true]);
  });

  it("does not let + cover # nor a/+ cover a/#", () => {
    expect([covers("+", "#"), covers("a/+", "a/#"), covers("a/+", "a/b/c")]).toEqual([false, false, false]);
  });

  it("does not let a literal level cover a wildcard", () => {
    expect([covers("a/b", "a/+"), covers("a", "a/#")]).toEqual([false, false]);
  });
});

describe("intersects", () => {
  it("finds a common topic for overlapping wildcards", () => {
    expect([intersects("a/+", "+/b"), intersects("a/#", "a"), intersects("#", "a/b/c")]).toEqual([true, true, true]);
  });

  it("finds none for different literal levels or lengths", () => {
    expect([intersects("a/b", "a/c"), intersects("a", "a/b"), intersects("a/+", "a")]).toEqual([false, false, false]);
  });

  it("finds none between a first-level wildcard and a $ topic", () => {
    expect([intersects("#", "$SYS/x"), intersects("$SYS/#", "+/x")]).toEqual([false, false]);
  });
});

describe("isValidFilter", () => {
  it("accepts wildcards that fill whole levels", () => {
    expect(["#", "a/#", "+/+", "a/+/b", "$SYS/#"].every(isValidFilter)).toBe(true);
  });

  it("refuses # before the last level, partial-level wildcards and the empty filter", () => {
    expect(["#/a", "a#", "a/b+", "", "a/#/b"].some(isValidFilter)).toBe(false);
  });
});

describe("unshare", () => {
  it("strips the $share prefix and group", () => {
    expect(unshare("$share/g/a/#")).toBe("a/#");
  });

  it("leaves other filters alone", () => {
    expect(unshare("a/$share/b")).toBe("a/$share/b");
  });
});

// Exhaustive oracle: over a small alphabet, compare with "every (some) topic of bounded depth".
const filterLevels = ["a", "$SYS", "+", "#"];
const topicLevels = ["a", "$SYS", "z"];
const filterArb = fc
  .array(fc.constantFrom(...filterLevels), { minLength: 1, maxLength: 3 })
  .map((levels) => levels.filter((level, i) => level !== "#" || i === levels.length - 1).join("/"))
  .filter((filter) => filter !== "" && isValidFilter(filter));

function topicsUpTo(depth: number): string[] {
  let layer = topicLevels.slice();
  const all = layer.slice();
  for (let d = 2; d <= depth; d += 1) {
    layer = layer.flatMap((prefix) => topicLevels.map((level) => `${prefix}/${level}`));
    all.push(...layer);
  }
  return all;
}
const topics = topicsUpTo(5);

describe("filter algebra against brute force", () => {
  it("covers(o, i) holds exactly when every topic i matches is matched by o", () => {
    fc.assert(
      fc.property(filterArb, filterArb, (outer, inner) => {
        const oracle = topics.every((topic) => !matches(inner, topic) || matches(outer, topic));
        expect(covers(outer, inner)).toBe(oracle);
      }),
      { numRuns: 500 },
    );
  });

  it("intersection(a, b) matches exactly the topics both match", () => {
    fc.assert(
      fc.property(filterArb, filterArb, (a, b) => {
        const both = topics.filter((topic) => matches(a, topic) && matches(b, topic));
        const meet = intersection(a, b);
        expect(meet === undefined ? [] : topics.filter((topic) => matches(meet, topic))).toEqual(both);
      }),
      { numRuns: 500 },
    );
  });

  it("intersects(a, b) holds exactly when some topic is matched by both", () => {
    fc.assert(
      fc.property(filterArb, filterArb, (a, b) => {
        const oracle = topics.some((topic) => matches(a, topic) && matches(b, topic));
        expect(intersects(a, b)).toBe(oracle);
      }),
      { numRuns: 500 },
    );
  });
});
