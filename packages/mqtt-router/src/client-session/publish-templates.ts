/**
 * PUBLISH templates shared by the copies of one message fanned out to many subscribers: from the
 * second copy on, the message is encoded once (codec `preparePublish`) and every further
 * subscriber with the same protocol version, QoS, retain flag and properties gets those bytes with
 * its own packet id patched in, instead of a fresh encoding. A host answers
 * `ClientSessionHost.encoded` from one of these, shared by all its connections.
 * @module
 */
import type { ProtocolVersion, PublishPacket } from "../codec/packet.js";
import { preparePublish, type PublishTemplate } from "../codec/publish-template.js";
import type { OutboundPublish } from "../router/sink.js";

/**
 * Variants kept per message by {@link PublishTemplates}. Copies that carry their own properties
 * (an expiry counted down, or subscription identifiers) differ by identity and share nothing; past
 * this many the rest are encoded by their connections, so such a fan-out never scans or holds a
 * template per copy.
 */
export const MAX_VARIANTS = 8;

interface Variant {
  readonly topic: string;
  readonly version: ProtocolVersion;
  readonly qos: OutboundPublish["qos"];
  readonly retain: boolean;
  /** Compared by identity: a copy with its own properties (subscription ids, expiry) is its own variant. */
  readonly properties: OutboundPublish["properties"];
  readonly template: PublishTemplate | undefined;
}

/**
 * The encodings shared by the copies of one message, for every connection of a broker. It
 * remembers the message delivered last (the router hands a message's copies out one after the
 * other), so a message with one recipient (fan-in) costs a comparison and never a template, and
 * nothing is held beyond the newest message.
 */
export class PublishTemplates {
  /** The payload of the message delivered last: a message's identity across its copies. */
  #payload: Uint8Array | undefined;
  readonly #variants: Variant[] = [];

  /** Templates encoded for the message delivered last (tests). */
  get size(): number {
    return this.#variants.filter((v) => v.template !== undefined).length;
  }

  /**
   * The template for `publish` in `version`: undefined for a message's first copy (its connection
   * encodes it), encoded at the second and shared from then on; undefined too when it cannot be
   * encoded (the connection then encodes it alone and reports the problem).
   */
  get(publish: OutboundPublish, version: ProtocolVersion): PublishTemplate | undefined {
    if (publish.payload !== this.#payload) {
      this.#payload = publish.payload;
      this.#variants.length = 0;
      return undefined;
    }
    for (const v of this.#variants) {
      if (v.version === version && v.qos === publish.qos && v.retain === publish.retain && v.properties === publish.properties && v.topic === publish.topic) {
        return v.template;
      }
    }
    if (this.#variants.length >= MAX_VARIANTS) return undefined;
    const template = prepare(publish, version);
    this.#variants.push({ topic: publish.topic, version, qos: publish.qos, retain: publish.retain, properties: publish.properties, template });
    return template;
  }
}

function prepare(publish: OutboundPublish, version: ProtocolVersion): PublishTemplate | undefined {
  const base = { type: "publish", topic: publish.topic, payload: publish.payload, retain: publish.retain, properties: publish.properties } as const;
  // For QoS > 0 the packet id is a placeholder each subscriber's copy replaces.
  const packet: PublishPacket = publish.qos === 0 ? { ...base, qos: 0, dup: false } : { ...base, qos: publish.qos, dup: false, packetId: 1 };
  const prepared = preparePublish(packet, version);
  return prepared.ok ? prepared.template : undefined;
}
