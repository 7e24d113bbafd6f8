/**
 * PUBLISH templates shared by the copies of one message fanned out in one turn: the first
 * subscriber's copy is encoded once (codec `preparePublish`) and every other subscriber with the
 * same protocol version, QoS, retain flag and properties gets those bytes with its own packet id
 * patched in, instead of a fresh encoding.
 * @module
 */
import { preparePublish, type OutboundPublish, type ProtocolVersion, type PublishPacket, type PublishTemplate } from "@handoff/mqtt-router";

interface Entry {
  readonly topic: string;
  readonly version: ProtocolVersion;
  readonly qos: OutboundPublish["qos"];
  readonly retain: boolean;
  /** Compared by identity: a copy with its own properties (subscription ids, expiry) is its own variant. */
  readonly properties: OutboundPublish["properties"];
  readonly template: PublishTemplate;
}

/**
 * A cache of templates that lives for one turn of the event loop (cleared by `defer`), so it
 * never holds a message longer than its fan-out takes.
 */
export class PublishTemplates {
  #entries = new Map<Uint8Array, Entry[]>();
  #clearing = false;

  /** @param defer runs its callback once the current turn is over (setImmediate in the broker) */
  constructor(private readonly defer: (run: () => void) => void) {}

  /** Templates held now (tests). */
  get size(): number {
    let n = 0;
    for (const list of this.#entries.values()) n += list.length;
    return n;
  }

  /**
   * The template for `publish` in `version`, encoding it on first use; undefined when it cannot
   * be encoded (the connection then encodes it alone and reports the problem).
   */
  get(publish: OutboundPublish, version: ProtocolVersion): PublishTemplate | undefined {
    const list = this.#entries.get(publish.payload);
    const found = list?.find(
      (e) => e.version === version && e.qos === publish.qos && e.retain === publish.retain && e.properties === publish.properties && e.topic === publish.topic,
    );
    if (found !== undefined) return found.template;
    const base = { type: "publish", topic: publish.topic, payload: publish.payload, retain: publish.retain, properties: publish.properties } as const;
    // For QoS > 0 the packet id is a placeholder each subscriber's copy replaces.
    const packet: PublishPacket =
      publish.qos === 0 ? { ...base, qos: 0, dup: false } : { ...base, qos: publish.qos, dup: false, packetId: 1 };
    const prepared = preparePublish(packet, version);
    if (!prepared.ok) return undefined;
    const entry: Entry = { topic: publish.topic, version, qos: publish.qos, retain: publish.retain, properties: publish.properties, template: prepared.template };
    if (list === undefined) this.#entries.set(publish.payload, [entry]);
    else list.push(entry);
    if (!this.#clearing) {
      this.#clearing = true;
      this.defer(() => {
        this.#clearing = false;
        this.#entries = new Map();
      });
    }
    return prepared.template;
  }
}
