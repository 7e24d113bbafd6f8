import { describe, expect, it } from "vitest";
import { decodeError, decodeOk, encodeError, encodeOk, hex } from "../test-bytes.test-helpers.js";

describe("SUBACK", () => {
  it("round-trips 3.1.1 return codes including failure 0x80", () => {
    const p = { type: "suback", packetId: 5, reasonCodes: [0, 1, 2, 0x80], properties: {} } as const;
    expect(decodeOk(encodeOk(p, 4), 4)).toEqual(p);
  });

  it("refuses to encode an MQTT 5 reason code on 3.1.1", () => {
    expect(encodeError({ type: "suback", packetId: 5, reasonCodes: [0x87], properties: {} }, 4)).toBe(0x81);
  });

  it("refuses a SUBACK without reason codes", () => {
    expect(decodeError(hex("90020001"), 4)).toBe(0x82);
  });
});
