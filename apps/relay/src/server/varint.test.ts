import { describe, expect, it } from "vitest";
import { varintBytes } from "./varint.js";

describe("varintBytes", () => {
  it("encodes small values in one byte", () => {
    expect([...varintBytes(37)]).toEqual([37]);
  });
  it("encodes the RFC 9000 examples", () => {
    expect([...varintBytes(15293)]).toEqual([0x7b, 0xbd]);
    expect([...varintBytes(494878333)]).toEqual([0x9d, 0x7f, 0x3e, 0x7d]);
    expect([...varintBytes(2 ** 40)]).toEqual([0xc0, 0, 0x01, 0, 0, 0, 0, 0]);
  });
  it("refuses negative values", () => {
    expect(() => varintBytes(-1)).toThrow(RangeError);
  });
});
