import { describe, expect, it } from "vitest";
import type { PubAckPacket } from "../packet.js";
import { decodeError, decodeOk, encodeError, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

const puback: PubAckPacket = { type: "puback", packetId: 1, reasonCode: 0, properties: {} };

describe("PUBACK, PUBREC, PUBREL, PUBCOMP", () => {
  it("encodes a successful MQTT 5 PUBACK in the two-byte short form", () => {
    expect(toHex(encodeOk(puback, 5))).toBe("40020001");
  });

  it("encodes a failed MQTT 5 PUBACK without properties in three bytes", () => {
    expect(toHex(encodeOk({ ...puback, reasonCode: 0x87 }, 5))).toBe("4003000187");
  });

  it("encodes PUBREL with flags 0b0010", () => {
    expect(toHex(encodeOk({ ...puback, type: "pubrel" }, 4))).toBe("62020001");
  });

  it("decodes the short form as success without properties", () => {
    expect(decodeOk(hex("50020007"), 5)).toEqual({ type: "pubrec", packetId: 7, reasonCode: 0, properties: {} });
  });

  it("decodes a reason code without a property length", () => {
    expect(decodeOk(hex("7003000792"), 5)).toEqual({ type: "pubcomp", packetId: 7, reasonCode: 0x92, properties: {} });
  });

  it("decodes a reason string", () => {
    const p: PubAckPacket = { ...puback, reasonCode: 0x10, properties: { reasonString: "nobody" } };
    expect(decodeOk(encodeOk(p, 5), 5)).toEqual(p);
  });

  it("drops the reason code when encoding for 3.1.1", () => {
    expect(toHex(encodeOk({ ...puback, reasonCode: 0x80 }, 4))).toBe("40020001");
  });

  it("refuses to encode a reason code the packet type may not carry", () => {
    expect(encodeError({ ...puback, type: "pubrel", reasonCode: 0x80 }, 5)).toBe(0x81);
  });

  it("refuses a PUBCOMP with flags set", () => {
    expect(decodeError(hex("71020001"), 4)).toBe(0x81);
  });
});
