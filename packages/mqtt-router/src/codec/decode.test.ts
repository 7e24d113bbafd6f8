import { describe, expect, it } from "vitest";
import { asDecodeError, decodePacket } from "./decode.js";
import { MqttDecodeError } from "./errors.js";
import { hex } from "./test-bytes.test-helpers.js";

describe("decodePacket", () => {
  it("decodes exactly one whole packet", () => {
    expect(decodePacket(hex("d000"), { protocolVersion: 4 })).toEqual({ ok: true, packet: { type: "pingresp" } });
  });

  it("refuses a lone first byte", () => {
    expect(decodePacket(hex("c0"), { protocolVersion: 4 })).toMatchObject({ ok: false, error: { reasonCode: 0x81 } });
  });

  it("refuses bytes after the packet", () => {
    expect(decodePacket(hex("c000 c000"), { protocolVersion: 4 })).toMatchObject({ ok: false, error: { message: "trailing bytes after packet" } });
  });

  it("decodes a CONNECT without being told the version", () => {
    expect(decodePacket(hex("100c00044d5154540402003c0000")).ok).toBe(true);
  });

  it("turns an unexpected exception into a Malformed Packet error", () => {
    expect(asDecodeError(new TypeError("boom"))).toMatchObject({ reasonCode: 0x81, message: "internal decoder error: TypeError: boom" });
  });

  it("passes its own errors through unchanged", () => {
    const e = new MqttDecodeError(0x82, "x");
    expect(asDecodeError(e)).toBe(e);
  });
});
