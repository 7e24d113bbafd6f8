import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteReader } from "./byte-reader.js";
import { varintBytes, varintSize, writeVarint, writeVarintBig } from "./varint.js";

function encode(value: number): Uint8Array {
  const out = new Uint8Array(varintSize(value));
  writeVarint(out, 0, value);
  return out;
}

describe("varint", () => {
  it("round-trips every safe integer", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (value) => {
        const bytes = encode(value);
        const reader = new ByteReader(bytes, 0, bytes.length);
        expect(reader.varint()).toBe(value);
        expect(reader.failed()).toBeUndefined();
        expect(reader.remaining).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it("uses the shortest of the four lengths at each boundary", () => {
    expect([63, 64, 16383, 16384, 2 ** 30 - 1, 2 ** 30].map(varintSize)).toEqual([1, 2, 2, 4, 4, 8]);
  });

  it("encodes the RFC 9000 examples", () => {
    expect([...encode(2 ** 40)]).toEqual([0xc0, 0, 0x01, 0, 0, 0, 0, 0]);
    expect([...encode(494878333)]).toEqual([0x9d, 0x7f, 0x3e, 0x7d]);
    expect([...encode(15293)]).toEqual([0x7b, 0xbd]);
    expect([...encode(37)]).toEqual([0x25]);
  });

  it("reports a truncated varint as short without throwing", () => {
    const reader = new ByteReader(Uint8Array.of(0x9d, 0x7f), 0, 2);
    expect(reader.varint()).toBe(0);
    expect(reader.failed()).toBe("short");
  });

  it("refuses a value above 2^53-1 as out of range", () => {
    const bytes = new Uint8Array(8);
    writeVarintBig(bytes, 0, 1n << 60n);
    const reader = new ByteReader(bytes, 0, 8);
    reader.varint();
    expect(reader.failed()).toBe("range");
  });

  it("reads any 62-bit value exactly as a bigint", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 62n) - 1n }), (value) => {
        const bytes = new Uint8Array(8);
        writeVarintBig(bytes, 0, value);
        expect(new ByteReader(bytes, 0, 8).varintBig()).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps the first failure and reads nothing after it", () => {
    const reader = new ByteReader(Uint8Array.of(0x40), 0, 1);
    reader.varint();
    expect(reader.take(0)).toHaveLength(0);
    expect(reader.failed()).toBe("short");
  });
});

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
