import { describe, expect, it } from "vitest";
import { decodeOk, encodeError, encodeOk, toHex } from "../test-bytes.test-helpers.js";

describe("AUTH", () => {
  it("encodes success without properties as an empty body", () => {
    expect(toHex(encodeOk({ type: "auth", reasonCode: 0, properties: {} }, 5))).toBe("f000");
  });

  it("round-trips a continue-authentication exchange", () => {
    const p = { type: "auth", reasonCode: 0x18, properties: { authenticationMethod: "SCRAM-SHA-1", authenticationData: Uint8Array.of(1, 2, 3) } } as const;
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("refuses to encode AUTH for 3.1.1", () => {
    expect(encodeError({ type: "auth", reasonCode: 0, properties: {} }, 4)).toBe(0x82);
  });
});
