import { describe, expect, it } from "vitest";
import { MAX_VARINT, VARINT_INCOMPLETE, VARINT_MALFORMED, readVarint, varintLength, writeVarint } from "./varint.js";

describe("variable byte integer", () => {
  it.each([
    [0, "00"],
    [127, "7f"],
    [128, "8001"],
    [16_383, "ff7f"],
    [16_384, "808001"],
    [2_097_151, "ffff7f"],
    [2_097_152, "80808001"],
    [MAX_VARINT, "ffffff7f"],
  ])("encodes %i as %s", (value, expected) => {
    const buf = new Uint8Array(4);
    const end = writeVarint(buf, 0, value);
    expect(Buffer.from(buf.subarray(0, end)).toString("hex")).toBe(expected);
    expect(varintLength(value)).toBe(end);
  });

  it.each([0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, MAX_VARINT])("reads back %i", (value) => {
    const buf = new Uint8Array(4);
    const end = writeVarint(buf, 0, value);
    expect(readVarint(buf, 0, end)).toBe(value);
  });

  it("refuses a fifth byte", () => {
    expect(readVarint(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x01), 0, 5)).toBe(VARINT_MALFORMED);
  });

  it("refuses a non-minimal encoding", () => {
    expect(readVarint(Uint8Array.of(0x80, 0x00), 0, 2)).toBe(VARINT_MALFORMED);
  });

  it("reports an integer cut short as incomplete", () => {
    expect(readVarint(Uint8Array.of(0x80, 0x80), 0, 2)).toBe(VARINT_INCOMPLETE);
  });
});
