import { describe, expect, it } from "vitest";
import { LiteError } from "./errors.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { BodyReader } from "./reader.js";
import { ByteWriter } from "./writer.js";

describe("ByteWriter and BodyReader", () => {
  it("round-trip non-ASCII strings through the UTF-8 slow path", () => {
    const w = new ByteWriter(2).string("héllo 🎥").string("plain");
    const r = new BodyReader(w.finish(), DEFAULT_LIMITS);
    expect([r.string(), r.string()]).toEqual(["héllo 🎥", "plain"]);
    r.finish();
  });

  it("round-trip a long ASCII string", () => {
    const long = "x".repeat(500);
    expect(new BodyReader(new ByteWriter().string(long).finish(), DEFAULT_LIMITS).string()).toBe(long);
  });

  it("frame a draft-14 SETUP body with a u16 size", () => {
    const w = new ByteWriter(1);
    w.sized16(() => w.bytes(new Uint8Array(300)));
    expect(Array.from(w.view().subarray(0, 2))).toEqual([1, 44]);
  });

  it("refuse a u16-framed body over 65535 bytes", () => {
    const w = new ByteWriter();
    expect(() => w.sized16(() => w.bytes(new Uint8Array(70000)))).toThrow(LiteError);
  });

  it("refuse a u8 outside 0..255", () => {
    expect(() => new ByteWriter().u8(256)).toThrow(LiteError);
  });

  it("refuse a string longer than the limit while reading", () => {
    const bytes = new ByteWriter().string("abcdef").finish();
    expect(() => new BodyReader(bytes, { ...DEFAULT_LIMITS, maxStringLength: 5 }).string()).toThrow(LiteError);
  });

  it("refuse a list count that cannot fit in the remaining body", () => {
    const r = new BodyReader(Uint8Array.of(10, 1), DEFAULT_LIMITS);
    expect(() => r.count(100, "list")).toThrow(LiteError);
  });
});
