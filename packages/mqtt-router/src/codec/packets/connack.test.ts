import { describe, expect, it } from "vitest";
import { decodeOk, encodeError, encodeOk, toHex } from "../test-bytes.test-helpers.js";

describe("CONNACK", () => {
  it("encodes a 3.1.1 CONNACK with session present", () => {
    expect(toHex(encodeOk({ type: "connack", sessionPresent: true, reasonCode: 0, properties: {} }, 4))).toBe("20020100");
  });

  it("round-trips MQTT 5 CONNACK capabilities", () => {
    const p = {
      type: "connack",
      sessionPresent: false,
      reasonCode: 0,
      properties: { maximumQoS: 1, retainAvailable: false, topicAliasMaximum: 10, assignedClientIdentifier: "auto-1", serverKeepAlive: 20 },
    } as const;
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("refuses to encode an MQTT 5 reason code on 3.1.1", () => {
    expect(encodeError({ type: "connack", sessionPresent: false, reasonCode: 0x84, properties: {} }, 4)).toBe(0x81);
  });
});
