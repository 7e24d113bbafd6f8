import { describe, expect, it } from "vitest";
import type { ConnectPacket } from "../packet.js";
import { decodeError, decodeOk, encodeError, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

const minimal: ConnectPacket = { type: "connect", protocolVersion: 4, cleanStart: true, keepAlive: 60, clientId: "", properties: {} };

describe("CONNECT", () => {
  it("encodes a minimal 3.1.1 CONNECT to the spec's bytes", () => {
    expect(toHex(encodeOk(minimal, 4))).toBe("100c00044d5154540402003c0000");
  });

  it("decodes a minimal 3.1.1 CONNECT", () => {
    expect(decodeOk(hex("100c00044d5154540402003c0000"))).toEqual(minimal);
  });

  it("decodes an MQTT 3.1 (MQIsdp, level 3) CONNECT so it can be refused properly", () => {
    expect(decodeOk(hex("1011 0006 4d5149736470 03 02 0000 0003 616263"))).toMatchObject({
      protocolVersion: 3,
      clientId: "abc",
    });
  });

  it("decodes an MQTT 5 CONNECT with properties, will, username and password", () => {
    const p: ConnectPacket = {
      type: "connect",
      protocolVersion: 5,
      cleanStart: false,
      keepAlive: 30,
      clientId: "c1",
      will: { topic: "w/t", payload: Uint8Array.of(1, 2), qos: 1, retain: true, properties: { willDelayInterval: 5 } },
      username: "u",
      password: Uint8Array.of(9),
      properties: { sessionExpiryInterval: 3600, receiveMaximum: 10, userProperties: [["k", "v"]] },
    };
    expect(decodeOk(encodeOk(p, 5))).toEqual(p);
  });

  it("accepts a password without a username in MQTT 5", () => {
    const p: ConnectPacket = { ...minimal, protocolVersion: 5, password: Uint8Array.of(1) };
    expect(decodeOk(encodeOk(p, 5))).toEqual(p);
  });

  it("refuses to encode a password without a username in 3.1.1", () => {
    expect(encodeError({ ...minimal, password: Uint8Array.of(1) }, 4)).toBe(0x81);
  });

  it("refuses to encode a Will Topic with a wildcard", () => {
    expect(encodeError({ ...minimal, will: { topic: "a/#", payload: new Uint8Array(), qos: 0, retain: false, properties: {} } }, 4)).toBe(0x90);
  });

  it("refuses trailing bytes after the payload", () => {
    expect(decodeError(hex("100d00044d5154540402003c000000"))).toBe(0x81);
  });

  it("refuses a will property outside the Will Properties", () => {
    expect(encodeError({ ...minimal, protocolVersion: 5, properties: { willDelayInterval: 1 } as ConnectPacket["properties"] }, 5)).toBe(0x81);
  });
});
