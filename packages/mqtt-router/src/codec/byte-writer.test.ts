import { describe, expect, it } from "vitest";
import { ByteWriter, checkBinary, checkInt, stringByteLength } from "./byte-writer.js";
import { MqttEncodeError } from "./errors.js";

describe("ByteWriter", () => {
  it("writes four-byte integers big-endian", () => {
    const w = new ByteWriter(new Uint8Array(4));
    w.u32(0xfedc_ba98);
    expect([...w.buf]).toEqual([0xfe, 0xdc, 0xba, 0x98]);
  });

  it("writes a string with its two-byte length prefix", () => {
    const w = new ByteWriter(new Uint8Array(7));
    w.utf8("é€", 5);
    expect([...w.buf]).toEqual([0x00, 0x05, 0xc3, 0xa9, 0xe2, 0x82, 0xac]);
  });

  it("accepts a string of exactly 65535 bytes", () => {
    expect(stringByteLength("x".repeat(65_535), "s")).toBe(65_535);
  });

  it("refuses a string of 65536 bytes", () => {
    expect(() => stringByteLength("é".repeat(32_768), "s")).toThrow(MqttEncodeError);
  });

  it("refuses binary data longer than 65535 bytes", () => {
    expect(() => {
      checkBinary(new Uint8Array(65_536), "b");
    }).toThrow(MqttEncodeError);
  });

  it("refuses a non-integer where an integer is due", () => {
    expect(() => {
      checkInt(1.5, 0, 10, "n");
    }).toThrow(/integer in 0..10/);
  });
});
