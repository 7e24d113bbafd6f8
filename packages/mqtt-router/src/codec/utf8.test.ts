import { describe, expect, it } from "vitest";
import { MqttDecodeError, MqttEncodeError } from "./errors.js";
import { decodeUtf8, utf8Length, writeUtf8 } from "./utf8.js";

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const decode = (b: Uint8Array): string => decodeUtf8(b, 0, b.length);

describe("UTF-8 strings", () => {
  it("decodes ASCII", () => {
    expect(decode(new TextEncoder().encode("sensors/a1"))).toBe("sensors/a1");
  });

  it("decodes multi-byte characters and astral code points", () => {
    expect(decode(new TextEncoder().encode("é€😀"))).toBe("é€😀");
  });

  it("decodes long ASCII strings through the slow path", () => {
    const s = "x".repeat(300);
    expect(decode(new TextEncoder().encode(s))).toBe(s);
  });

  it("keeps a leading byte order mark [MQTT-1.5.4-3]", () => {
    expect(decode(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe("\uFEFFa");
  });

  it("refuses U+0000 [MQTT-1.5.4-2]", () => {
    expect(() => decode(bytes(0x61, 0x00))).toThrow(MqttDecodeError);
  });

  it("refuses U+0000 in a non-ASCII string", () => {
    expect(() => decode(bytes(0xc3, 0xa9, 0x00))).toThrow(MqttDecodeError);
  });

  it("refuses an encoded surrogate [MQTT-1.5.4-1]", () => {
    expect(() => decode(bytes(0xed, 0xa0, 0x80))).toThrow(MqttDecodeError);
  });

  it("refuses an overlong encoding", () => {
    expect(() => decode(bytes(0xc0, 0xaf))).toThrow(MqttDecodeError);
  });

  it("refuses a truncated sequence", () => {
    expect(() => decode(bytes(0xe2, 0x82))).toThrow(MqttDecodeError);
  });

  it("accepts control characters U+0001, U+007F and U+0085 (a documented choice)", () => {
    expect(decode(bytes(0x01, 0x7f, 0xc2, 0x85))).toBe("\u0001\u007f\u0085");
  });

  it("measures the UTF-8 length of mixed text", () => {
    expect(utf8Length("aé€😀")).toBe(1 + 2 + 3 + 4);
  });

  it("refuses to measure a lone surrogate", () => {
    expect(() => utf8Length("a\uD800b")).toThrow(MqttEncodeError);
  });

  it("refuses to measure U+0000", () => {
    expect(() => utf8Length("a\u0000")).toThrow(MqttEncodeError);
  });

  it("writes non-ASCII text as UTF-8", () => {
    const s = "é😀";
    const buf = new Uint8Array(utf8Length(s));
    writeUtf8(buf, 0, s, buf.length);
    expect(buf).toEqual(new TextEncoder().encode(s));
  });
});
