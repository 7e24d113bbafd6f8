import { describe, expect, it } from "vitest";
import { decodeError, decodeOk, encodeError, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

describe("UNSUBACK", () => {
  it("encodes a 3.1.1 UNSUBACK as the packet id only", () => {
    expect(toHex(encodeOk({ type: "unsuback", packetId: 9, reasonCodes: [0x11], properties: {} }, 4))).toBe("b0020009");
  });

  it("decodes a 3.1.1 UNSUBACK without reason codes", () => {
    expect(decodeOk(hex("b0020009"), 4)).toEqual({ type: "unsuback", packetId: 9, reasonCodes: [], properties: {} });
  });

  it("decodes MQTT 5 UNSUBACK reason codes", () => {
    expect(decodeOk(hex("b005000900 0011"), 5)).toEqual({ type: "unsuback", packetId: 9, reasonCodes: [0, 0x11], properties: {} });
  });

  it("refuses an MQTT 5 reason code UNSUBACK may not carry", () => {
    expect(decodeError(hex("b004000900 02"), 5)).toBe(0x81);
  });

  it("refuses to encode an MQTT 5 UNSUBACK without reason codes", () => {
    expect(encodeError({ type: "unsuback", packetId: 9, reasonCodes: [], properties: {} }, 5)).toBe(0x82);
  });
});
