import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LiteError } from "./errors.js";
import { decodeVarint, encodeVarint, varintSize, zigzagDecode, zigzagEncode } from "./varint.js";

describe("QUIC varints", () => {
  it("use the minimal length at each boundary", () => {
    const cases: [number, number][] = [
      [0, 1],
      [63, 1],
      [64, 2],
      [16383, 2],
      [16384, 4],
      [2 ** 30 - 1, 4],
      [2 ** 30, 8],
      [Number.MAX_SAFE_INTEGER, 8],
    ];
    expect(cases.map(([v]) => encodeVarint(v).length)).toEqual(cases.map(([, n]) => n));
    expect(cases.map(([v]) => varintSize(v))).toEqual(cases.map(([, n]) => n));
  });

  it("decode the RFC 9000 examples that fit in 53 bits", () => {
    expect(decodeVarint(Uint8Array.of(0x9d, 0x7f, 0x3e, 0x7d))).toEqual({ value: 494878333, size: 4 });
    expect(decodeVarint(Uint8Array.of(0x7b, 0xbd))).toEqual({ value: 15293, size: 2 });
    expect(decodeVarint(Uint8Array.of(0x25))).toEqual({ value: 37, size: 1 });
  });

  it("accept a non-minimal encoding, as the reference does", () => {
    expect(decodeVarint(Uint8Array.of(0x40, 0x25))).toEqual({ value: 37, size: 2 });
  });

  it("refuse a value above 2^53-1 with a bounds error instead of losing precision", () => {
    const rfcExample = Uint8Array.of(0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c);
    const result = decodeVarint(rfcExample);
    expect(result).toBeInstanceOf(LiteError);
    expect(result instanceof LiteError ? [result.code, result.reason] : undefined).toEqual([11, "unsafe_integer"]);
    const twoTo53 = Uint8Array.of(0xc0, 0x20, 0, 0, 0, 0, 0, 0);
    expect(decodeVarint(twoTo53)).toBeInstanceOf(LiteError);
  });

  it("report a truncated varint as not yet complete", () => {
    expect(decodeVarint(Uint8Array.of(0x80, 0x01))).toBeUndefined();
  });

  it("round-trip every safe integer", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (v) => {
        expect(decodeVarint(encodeVarint(v))).toEqual({ value: v, size: varintSize(v) });
      }),
      { numRuns: 1000 },
    );
  });

  it("refuse to encode negative, fractional or unsafe numbers", () => {
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN]) {
      expect(() => encodeVarint(bad)).toThrow(LiteError);
    }
  });

  it("zigzag-map small signed deltas to small unsigned values and back", () => {
    expect([0, -1, 1, -2, 2].map(zigzagEncode)).toEqual([0, 1, 2, 3, 4]);
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 51), max: 2 ** 51 }), (n) => {
        expect(zigzagDecode(zigzagEncode(n))).toBe(n);
      }),
      { numRuns: 500 },
    );
  });
});
