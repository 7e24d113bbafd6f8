import { describe, expect, it } from "vitest";
import { bestRoute, compareRoutes, type Route, type RouteSource } from "./route.js";

function source(id: number): RouteSource {
  return { id, subscribeUpstream: () => undefined };
}

function route(id: number, cost: number, hops: number[], order: number): Route {
  return { source: source(id), cost, hops, order };
}

describe("route ranking", () => {
  it("prefers the lower cost over fewer hops", () => {
    const cheap = route(1, 0, [1, 2, 3], 0);
    const short = route(2, 5, [], 1);
    expect(bestRoute([short, cheap], undefined)).toBe(cheap);
  });

  it("prefers fewer hops at equal cost", () => {
    const near = route(1, 1, [7], 0);
    const far = route(2, 1, [7, 8], 1);
    expect(bestRoute([far, near], undefined)).toBe(near);
  });

  it("prefers the most recent route on a full tie", () => {
    const old = route(1, 1, [7], 0);
    const fresh = route(2, 1, [9], 3);
    expect(compareRoutes(fresh, old)).toBeLessThan(0);
    expect(bestRoute([old, fresh], undefined)).toBe(fresh);
  });

  it("never routes back to the requesting source", () => {
    const only = route(1, 0, [], 0);
    expect(bestRoute([only], only.source)).toBeUndefined();
    const other = route(2, 9, [1, 2], 1);
    expect(bestRoute([only, other], only.source)).toBe(other);
  });
});
