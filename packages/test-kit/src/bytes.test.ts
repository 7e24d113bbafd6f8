import { describe, expect, it } from "vitest";
import { concat, hex, toHex } from "./bytes.js";

describe("byte helpers", () => {
  it("reads hex with whitespace and writes it back in lower case", () => {
    expect([...hex("30 02\n00 FF")]).toEqual([0x30, 0x02, 0x00, 0xff]);
    expect(toHex(hex("30 02 00 FF"))).toBe("300200ff");
    expect(toHex(new Uint8Array(0))).toBe("");
  });

  it("refuses what is not whole hex bytes", () => {
    expect(() => hex("123")).toThrow(/not hex/);
    expect(() => hex("zz")).toThrow(/not hex/);
  });

  it("concatenates in order into a new buffer", () => {
    const a = Uint8Array.of(1, 2);
    const out = concat([a, new Uint8Array(0), Uint8Array.of(3)]);
    expect([...out]).toEqual([1, 2, 3]);
    out[0] = 9;
    expect(a[0]).toBe(1);
  });
});
