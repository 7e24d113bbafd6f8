// Messages survive the row encoding exactly.
import type { Message, MessageProperties } from "@handoff/mqtt-router";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeProperties, encodeProperties, messageToRow, rowToMessage } from "./message-codec.js";

const properties: fc.Arbitrary<MessageProperties> = fc.record(
  {
    payloadFormatIndicator: fc.constantFrom<0 | 1>(0, 1),
    contentType: fc.string(),
    responseTopic: fc.string({ unit: "grapheme" }),
    correlationData: fc.uint8Array({ maxLength: 64 }),
    userProperties: fc.array(fc.tuple(fc.string(), fc.string({ unit: "grapheme" }))),
  },
  { requiredKeys: [] },
);

const messages: fc.Arbitrary<Message> = fc
  .record({
    topic: fc.string({ unit: "grapheme", minLength: 1 }),
    payload: fc.uint8Array({ maxLength: 256 }),
    qos: fc.constantFrom<0 | 1 | 2>(0, 1, 2),
    retain: fc.boolean(),
    properties,
    expiresAt: fc.option(fc.integer({ min: 0, max: 2 ** 48 }), { nil: undefined }),
    origin: fc.option(fc.string(), { nil: undefined }),
  })
  .map(({ expiresAt, origin, ...rest }) => ({ ...rest, ...(expiresAt === undefined ? {} : { expiresAt }), ...(origin === undefined ? {} : { origin }) }));

describe("message codec", () => {
  it("round-trips any message exactly, user property order and correlation bytes included", () => {
    fc.assert(
      fc.property(messages, (m) => {
        expect(rowToMessage(messageToRow(m))).toEqual(m);
      }),
      { numRuns: 500 },
    );
  });

  it("stores no properties as null", () => {
    expect(encodeProperties({})).toBeNull();
  });

  it("keeps duplicate user property names in their order", () => {
    const p: MessageProperties = { userProperties: [["a", "1"], ["b", "2"], ["a", "3"]] };
    expect(decodeProperties(encodeProperties(p))).toEqual(p);
  });

  it("copies the payload out of the row's buffer", () => {
    const row = messageToRow({ topic: "t", payload: new Uint8Array([1, 2]), qos: 0, retain: false, properties: {} });
    const back = rowToMessage(row);
    row.payload[0] = 9;
    expect([...back.payload]).toEqual([1, 2]);
  });
});
