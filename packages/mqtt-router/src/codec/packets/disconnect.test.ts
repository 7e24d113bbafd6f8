import { describe, expect, it } from "vitest";
import { decodeError, decodeOk, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

describe("DISCONNECT", () => {
  it("encodes a normal MQTT 5 DISCONNECT with an empty body", () => {
    expect(toHex(encodeOk({ type: "disconnect", reasonCode: 0, properties: {} }, 5))).toBe("e000");
  });

  it("encodes a reason code alone when there are no properties", () => {
    expect(toHex(encodeOk({ type: "disconnect", reasonCode: 0x8e, properties: {} }, 5))).toBe("e0018e");
  });

  it("round-trips a Server Reference", () => {
    const p = { type: "disconnect", reasonCode: 0x9c, properties: { serverReference: "other:1883" } } as const;
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("refuses a reason code DISCONNECT may not carry", () => {
    expect(decodeError(hex("e00101"), 5)).toBe(0x81);
  });
});
