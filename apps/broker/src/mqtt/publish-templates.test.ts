import { decodePacket, type OutboundPublish } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import { PublishTemplates } from "./publish-templates.js";

function publish(fields: Partial<OutboundPublish> = {}): OutboundPublish {
  return { topic: "a/b", payload: Uint8Array.of(1, 2, 3), qos: 1, retain: false, dup: false, packetId: 7, properties: {}, ...fields };
}

/** A cache whose deferred clear the test runs by hand. */
function cache(): { templates: PublishTemplates; endTurn: () => void } {
  const pending: (() => void)[] = [];
  const templates = new PublishTemplates((run) => pending.push(run));
  return {
    templates,
    endTurn: () => {
      for (const run of pending.splice(0)) run();
    },
  };
}

describe("PublishTemplates", () => {
  it("encodes a message once for every copy with the same version, QoS, retain flag and properties", () => {
    const { templates } = cache();
    const message = publish();
    const first = templates.get(message, 5);
    const second = templates.get({ ...message, packetId: 9 }, 5);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(templates.size).toBe(1);
  });

  it("keeps a separate variant per version, QoS and properties object", () => {
    const { templates } = cache();
    const message = publish();
    templates.get(message, 5);
    templates.get(message, 4);
    const { packetId: _id, ...qos0 } = message;
    templates.get({ ...qos0, qos: 0 }, 5);
    templates.get({ ...message, properties: { subscriptionIdentifiers: [3] } }, 5);
    expect(templates.size).toBe(4);
  });

  it("encodes the message itself: topic, payload and the packet id patched per copy", () => {
    const { templates } = cache();
    const template = templates.get(publish({ qos: 2 }), 5);
    if (template === undefined) throw new Error("no template");
    const decoded = decodePacket(template.withPacketId(42, true), { protocolVersion: 5 });
    expect(decoded).toMatchObject({ ok: true, packet: { type: "publish", topic: "a/b", qos: 2, packetId: 42, dup: true, payload: Uint8Array.of(1, 2, 3) } });
  });

  it("forgets everything once the turn is over", () => {
    const { templates, endTurn } = cache();
    const message = publish();
    const first = templates.get(message, 5);
    endTurn();
    expect(templates.size).toBe(0);
    expect(templates.get(message, 5)).not.toBe(first);
  });
});
