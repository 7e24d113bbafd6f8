import { describe, expect, it } from "vitest";
import { closest, didYouMean, editDistance } from "./suggest.js";

describe("editDistance", () => {
  it("counts a swap of neighbouring characters as one edit", () => {
    expect(editDistance("prot", "port")).toBe(1);
  });

  it("counts a substitution as one edit", () => {
    expect(editDistance("port", "post")).toBe(1);
  });

  it("is zero for equal strings", () => {
    expect(editDistance("listeners", "listeners")).toBe(0);
  });

  it("is the length of the other string against the empty string", () => {
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("closest", () => {
  it("picks the nearest candidate", () => {
    expect(closest("listners", ["limits", "listeners", "logLevel"])).toBe("listeners");
  });

  it("ignores case", () => {
    expect(closest("LOGLEVEL", ["logLevel"])).toBe("logLevel");
  });

  it("returns nothing when every candidate is far", () => {
    expect(closest("queue", ["listeners", "http"])).toBeUndefined();
  });
});

describe("didYouMean", () => {
  it("is empty without a close candidate", () => {
    expect(didYouMean("zzz", ["http"])).toBe("");
  });
});
