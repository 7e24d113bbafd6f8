import { describe, expect, it } from "vitest";
import { ByteReader } from "./byte-reader.js";
import { ByteWriter } from "./byte-writer.js";
import { MqttDecodeError, MqttEncodeError } from "./errors.js";
import { PropertyContext, decodeProperties, propertiesLength, writeProperties } from "./properties.js";
import type { Properties } from "./property-types.js";
import { hex, toHex } from "./test-bytes.test-helpers.js";
import { varintLength } from "./varint.js";

function encode(p: Properties, ctx: PropertyContext): Uint8Array {
  const len = propertiesLength(p, ctx);
  const w = new ByteWriter(new Uint8Array(varintLength(len) + len));
  writeProperties(w, p, len);
  return w.buf;
}

function decode(b: Uint8Array, ctx: PropertyContext): Properties {
  return decodeProperties(new ByteReader(b, 0, b.length), ctx);
}

describe("properties", () => {
  it("keeps repeated User Properties in order, duplicates included", () => {
    const p: Properties = { userProperties: [["b", "1"], ["a", "2"], ["b", "1"]] };
    expect(decode(encode(p, PropertyContext.Publish), PropertyContext.Publish)).toEqual(p);
  });

  it("writes properties in identifier order whatever the object's key order", () => {
    expect(toHex(encode({ topicAlias: 1, payloadFormatIndicator: 1 }, PropertyContext.Publish))).toBe("050101230001");
  });

  it("decodes the empty block as no properties", () => {
    expect(decode(hex("00"), PropertyContext.Connect)).toEqual({});
  });

  it("decodes every CONNACK property type (byte, two- and four-byte int, string, binary)", () => {
    const p: Properties = {
      sessionExpiryInterval: 0xffff_ffff,
      receiveMaximum: 65_535,
      maximumQoS: 0,
      retainAvailable: true,
      maximumPacketSize: 1,
      authenticationMethod: "m",
      authenticationData: Uint8Array.of(0, 255),
      serverKeepAlive: 0,
    };
    expect(decode(encode(p, PropertyContext.Connack), PropertyContext.Connack)).toEqual(p);
  });

  it("refuses to encode a property the packet type may not carry", () => {
    expect(() => encode({ topicAlias: 1 }, PropertyContext.Connect)).toThrow(MqttEncodeError);
  });

  it("refuses to encode Receive Maximum 0", () => {
    expect(() => encode({ receiveMaximum: 0 }, PropertyContext.Connect)).toThrow(MqttEncodeError);
  });

  it("refuses to encode a Subscription Identifier above the varint range", () => {
    expect(() => encode({ subscriptionIdentifier: 268_435_456 }, PropertyContext.Subscribe)).toThrow(MqttEncodeError);
  });

  it("refuses to encode Authentication Data without Authentication Method", () => {
    expect(() => encode({ authenticationData: Uint8Array.of(1) }, PropertyContext.Auth)).toThrow(MqttEncodeError);
  });

  it("refuses a Retain Available byte other than 0 or 1", () => {
    expect(() => decode(hex("02 25 02"), PropertyContext.Connack)).toThrow(MqttDecodeError);
  });

  it("refuses a duplicate Reason String", () => {
    expect(() => decode(hex("06 1f0000 1f0000"), PropertyContext.PubAck)).toThrow(/duplicate/);
  });

  it("refuses a property value running past the block", () => {
    expect(() => decode(hex("02 0200000000"), PropertyContext.Publish)).toThrow(MqttDecodeError);
  });
});
