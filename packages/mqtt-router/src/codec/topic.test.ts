import { describe, expect, it } from "vitest";
import { isValidPlainTopicFilter, isValidTopicFilter, isValidTopicName, parseSharedFilter } from "./topic.js";

describe("topic names", () => {
  it.each(["a", "a/b", "/", "a//b", "$SYS/x", "é/😀"])("accepts %j", (t) => {
    expect(isValidTopicName(t)).toBe(true);
  });

  it.each(["", "a/+", "#", "a/b#", "+/x"])("refuses %j", (t) => {
    expect(isValidTopicName(t)).toBe(false);
  });
});

describe("topic filters", () => {
  it.each(["#", "+", "a/#", "+/+", "a/+/b", "/#", "a//+", "+/#", "$share"])("accepts %j", (f) => {
    expect(isValidPlainTopicFilter(f)).toBe(true);
  });

  it.each(["", "a#", "a/#/b", "a/b#", "a+", "+a/b", "a/+b", "##"])("refuses %j", (f) => {
    expect(isValidPlainTopicFilter(f)).toBe(false);
  });

  it("splits a shared subscription into group and filter", () => {
    expect(parseSharedFilter("$share/g1/a/+/#")).toEqual({ group: "g1", filter: "a/+/#" });
  });

  it("treats a filter without the $share/ prefix as not shared", () => {
    expect(parseSharedFilter("a/b")).toBeUndefined();
  });

  it.each(["$share//a", "$share/g", "$share/g/", "$share/g+/a", "$share/#/a", "$share/g/a#"])("refuses shared filter %j", (f) => {
    expect(parseSharedFilter(f)).toBeNull();
    expect(isValidTopicFilter(f, 5)).toBe(false);
  });

  it("treats $share/ filters as ordinary filters in 3.1.1", () => {
    expect(isValidTopicFilter("$share/g", 4)).toBe(true);
  });
});
