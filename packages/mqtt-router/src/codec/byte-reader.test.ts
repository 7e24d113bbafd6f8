import { describe, expect, it } from "vitest";
import { ByteReader } from "./byte-reader.js";
import { MqttDecodeError } from "./errors.js";
import { hex } from "./test-bytes.test-helpers.js";

const reader = (s: string): ByteReader => {
  const b = hex(s);
  return new ByteReader(b, 0, b.length);
};

describe("ByteReader", () => {
  it("reads big-endian two-byte integers", () => {
    expect(reader("fffe").u16()).toBe(0xfffe);
  });

  it("reads four-byte integers above 2^31 as positive numbers", () => {
    expect(reader("ffffffff").u32()).toBe(0xffff_ffff);
  });

  it("reads binary data as a view, not a copy", () => {
    const r = reader("0002 abcd");
    const v = r.binary();
    expect(v.buffer).toBe(r.buf.buffer);
    expect([...v]).toEqual([0xab, 0xcd]);
  });

  it("refuses to read past its end", () => {
    const b = hex("0001 61 ff");
    // The end is before the last byte, as for a property block inside a packet.
    expect(() => new ByteReader(b, 0, 2).utf8()).toThrow(MqttDecodeError);
  });

  it("refuses a string whose length runs past the end", () => {
    expect(() => reader("0005 6162").utf8()).toThrow(/longer than packet/);
  });

  it("returns the rest of the bytes as the payload", () => {
    const r = reader("01 0203");
    r.u8();
    expect([...r.rest()]).toEqual([2, 3]);
  });
});
