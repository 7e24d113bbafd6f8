import { describe, expect, it } from "vitest";
import { decodePacket } from "../codec/decode.js";
import type { OutboundPublish } from "../router/sink.js";
import { MAX_VARIANTS, PublishTemplates } from "./publish-templates.js";

function publish(fields: Partial<OutboundPublish> = {}): OutboundPublish {
  return { topic: "a/b", payload: Uint8Array.of(1, 2, 3), qos: 1, retain: false, dup: false, packetId: 7, properties: {}, ...fields };
}

function cache(): { templates: PublishTemplates } {
  return { templates: new PublishTemplates() };
}

describe("PublishTemplates", () => {
  it("leaves a message's first copy to its connection, and encodes once for every further copy", () => {
    const { templates } = cache();
    const message = publish();
    expect(templates.get(message, 5)).toBeUndefined();
    expect(templates.size).toBe(0);
    const second = templates.get({ ...message, packetId: 9 }, 5);
    const third = templates.get({ ...message, packetId: 10 }, 5);
    expect(second).toBeDefined();
    expect(third).toBe(second);
    expect(templates.size).toBe(1);
  });

  it("keeps a separate variant per version, QoS and properties object", () => {
    const { templates } = cache();
    const message = publish();
    const { packetId: _id, ...qos0 } = message;
    const variants: OutboundPublish[] = [message, { ...qos0, qos: 0 }, { ...message, properties: { subscriptionIdentifiers: [3] } }];
    for (const v of variants) for (const version of [4, 5] as const) for (let copy = 0; copy < 2; copy++) templates.get(v, version);
    expect(templates.size).toBe(6);
  });

  it("encodes the message itself: topic, payload and the packet id patched per copy", () => {
    const { templates } = cache();
    const message = publish({ qos: 2 });
    templates.get(message, 5);
    const template = templates.get(message, 5);
    if (template === undefined) throw new Error("no template");
    const decoded = decodePacket(template.withPacketId(42, true), { protocolVersion: 5 });
    expect(decoded).toMatchObject({ ok: true, packet: { type: "publish", topic: "a/b", qos: 2, packetId: 42, dup: true, payload: Uint8Array.of(1, 2, 3) } });
  });

  it("stops making variants past the bound: copies with their own properties are left to their connections", () => {
    const { templates } = cache();
    const message = publish();
    templates.get(message, 5);
    const made = Array.from({ length: MAX_VARIANTS + 3 }, (_, i) => templates.get({ ...message, properties: { subscriptionIdentifiers: [i + 1] } }, 5));
    expect(made.filter((t) => t !== undefined)).toHaveLength(MAX_VARIANTS);
    expect(templates.size).toBe(MAX_VARIANTS);
  });

  it("holds only the message delivered last: the next message starts over", () => {
    const { templates } = cache();
    const message = publish();
    templates.get(message, 5);
    expect(templates.get(message, 5)).toBeDefined();
    const next = publish();
    expect(templates.get(next, 5)).toBeUndefined();
    expect(templates.size).toBe(0);
  });
});
