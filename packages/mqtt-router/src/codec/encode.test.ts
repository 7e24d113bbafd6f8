import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePacket } from "./decode.js";
import { anyPacket } from "./arbitraries.test-helpers.js";
import { encodePacket } from "./encode.js";
import { MqttEncodeError } from "./errors.js";
import type { Packet } from "./packet.js";
import { propertyInfo } from "./properties.js";

describe("encodePacket", () => {
  it("returns errors as values instead of throwing", () => {
    const r = encodePacket({ type: "puback", packetId: 0, reasonCode: 0, properties: {} }, { protocolVersion: 4 });
    expect(r.ok ? undefined : r.error).toBeInstanceOf(MqttEncodeError);
  });

  it("reports a packet that does not fit the maximum size with Packet Too Large", () => {
    const r = encodePacket({ type: "pingreq" }, { protocolVersion: 4, maxPacketSize: 1 });
    expect(r.ok ? undefined : r.error.reasonCode).toBe(0x95);
  });

  it("reports a malformed input object instead of throwing", () => {
    const bogus = { type: "publish", qos: 1, topic: 42 } as unknown as Packet;
    expect(encodePacket(bogus, { protocolVersion: 5 }).ok).toBe(false);
  });

  it("sizes the buffer exactly", () => {
    const r = encodePacket({ type: "unsubscribe", packetId: 1, topicFilters: ["é/#"], properties: {} }, { protocolVersion: 5 });
    expect(r.ok ? r.bytes.length : 0).toBe(2 + 2 + 1 + 2 + 4);
  });

  it("either refuses a valid packet with one field corrupted or writes bytes that decode", () => {
    const anyValue = fc.oneof(
      fc.anything({ maxDepth: 2 }),
      fc.integer({ min: -2, max: 70_000 }),
      fc.double(),
      fc.string({ maxLength: 4 }),
      fc.uint8Array({ maxLength: 4 }),
      fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
    );
    const corrupted = fc
      .tuple(fc.constantFrom<4 | 5>(4, 5), fc.boolean(), fc.nat(), anyValue)
      .chain(([v, inProperties, pick, value]) =>
        anyPacket(v).map((packet) => {
          const fields: Record<string, unknown> = { ...packet };
          if (inProperties) {
            const keys = Object.keys(propertyInfo);
            fields["properties"] = { ...(fields["properties"] as object), [keys[pick % keys.length] ?? ""]: value };
          } else {
            const keys = Object.keys(fields).filter((k) => k !== "type");
            if (keys.length > 0) fields[keys[pick % keys.length] ?? ""] = value;
          }
          return { v, packet: fields as unknown as Packet };
        }),
      );
    fc.assert(
      fc.property(corrupted, ({ v, packet }) => {
        const r = encodePacket(packet, { protocolVersion: v });
        if (r.ok) expect(decodePacket(r.bytes, { protocolVersion: v }).ok).toBe(true);
        else expect(r.error).toBeInstanceOf(MqttEncodeError);
      }),
      { numRuns: 1000 },
    );
  });
});
