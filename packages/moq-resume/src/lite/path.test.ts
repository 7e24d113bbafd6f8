import { describe, expect, it } from "vitest";
import { joinPath, normalizePath, stripPathPrefix } from "./path.js";

describe("paths", () => {
  it("trim leading and trailing slashes and collapse runs of slashes", () => {
    expect(normalizePath("//room///alice/")).toBe("room/alice");
    expect(normalizePath("/")).toBe("");
    expect(normalizePath("plain")).toBe("plain");
  });

  it("strip a prefix only at a part boundary", () => {
    expect(stripPathPrefix("foo", "foo/bar")).toBe("bar");
    expect(stripPathPrefix("foo/", "foo")).toBe("");
    expect(stripPathPrefix("foo", "foobar")).toBeUndefined();
    expect(stripPathPrefix("", "a/b")).toBe("a/b");
  });

  it("join with exactly one slash", () => {
    expect(joinPath("a/", "/b")).toBe("a/b");
    expect(joinPath("", "b")).toBe("b");
    expect(joinPath("a", "")).toBe("a");
  });
});
