import { describe, expect, it } from "vitest";
import { decodeOk, encodeError, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

describe("UNSUBSCRIBE", () => {
  it("round-trips an UNSUBSCRIBE with several filters", () => {
    const p = { type: "unsubscribe", packetId: 9, topicFilters: ["a/+", "#", "$share/g/x"], properties: {} } as const;
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("encodes a 3.1.1 UNSUBSCRIBE with flags 0b0010", () => {
    expect(toHex(encodeOk({ type: "unsubscribe", packetId: 1, topicFilters: ["a"], properties: {} }, 4))).toBe("a20500010001" + "61");
  });

  it("decodes MQTT 5 user properties on UNSUBSCRIBE", () => {
    expect(decodeOk(hex("a20d 0001 07 26 0001 6b 0001 76 0001 61"), 5)).toEqual({
      type: "unsubscribe",
      packetId: 1,
      topicFilters: ["a"],
      properties: { userProperties: [["k", "v"]] },
    });
  });

  it("refuses to encode an empty filter list", () => {
    expect(encodeError({ type: "unsubscribe", packetId: 1, topicFilters: [], properties: {} }, 4)).toBe(0x82);
  });

  it("refuses to encode an invalid filter", () => {
    expect(encodeError({ type: "unsubscribe", packetId: 1, topicFilters: ["a#"], properties: {} }, 4)).toBe(0x8f);
  });
});
