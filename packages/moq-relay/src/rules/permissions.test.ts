import { describe, expect, it } from "vitest";
import { allowed, mergePermissions, overlaps } from "./permissions.js";

describe("path permissions", () => {
  it("allows paths under a granted prefix on part boundaries", () => {
    expect(allowed(["room"], "room/cam")).toBe(true);
    expect(allowed(["room"], "room")).toBe(true);
    expect(allowed(["room"], "roomy/cam")).toBe(false);
  });

  it("allows everything under the empty prefix", () => {
    expect(allowed([""], "a/b/c")).toBe(true);
  });

  it("allows nothing without grants", () => {
    expect(allowed([], "a")).toBe(false);
  });

  it("sees an overlap when a grant lies under the requested prefix", () => {
    expect(overlaps(["room/cams"], "room")).toBe(true);
    expect(overlaps(["room/cams"], "other")).toBe(false);
  });

  it("merges grants without duplicates", () => {
    expect(mergePermissions({ publish: ["a"], subscribe: ["b"] }, { publish: ["a"], subscribe: ["c"] })).toEqual({ publish: ["a"], subscribe: ["b", "c"] });
  });
});
