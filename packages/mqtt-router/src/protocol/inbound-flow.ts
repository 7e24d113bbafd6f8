import type { ProtocolVersion, PublishPacket } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { topicLevels } from "../codec/topic.js";
import type { ServerLimits } from "./options.js";
import type { Outbox } from "./outbox.js";
import { InboundTopicAliases, withoutTopicAlias } from "./topic-alias.js";
import { violation, type Violation } from "./violation.js";

/**
 * The server's side of PUBLISHes from the client: capability checks, inbound Topic Aliases and
 * the QoS 1/2 flows. Acknowledgements wait for the app (`acknowledge`), which commits the
 * message first. The "received, awaiting PUBREL" packet ids belong to the session: they are
 * seeded from the router at accept time and every change is reported as an effect so the
 * router can persist it.
 */
export class InboundFlow {
  /** QoS 1/2 PUBLISHes handed to the app and not yet acknowledged, by packet id. */
  // Made on first use: an idle client never needs it.
  #awaitingApp: Map<number, 1 | 2> | undefined;
  /** QoS 2 packet ids received and not yet released by PUBREL (session state). */
  // Made on first use: an idle client never needs it.
  #awaitingPubrel: Set<number> | undefined;
  #qos1InFlight = 0;
  readonly #aliases: InboundTopicAliases;

  readonly #outbox: Outbox;
  readonly #version: ProtocolVersion;
  readonly #limits: ServerLimits;

  /**
   * @param outbox where acknowledgements and effects go
   * @param version the connection's protocol version (3.1.1 has no Receive Maximum nor aliases)
   * @param limits the server limits in force
   */
  constructor(outbox: Outbox, version: ProtocolVersion, limits: ServerLimits) {
    this.#outbox = outbox;
    this.#version = version;
    this.#limits = limits;
    this.#aliases = new InboundTopicAliases(version === 5 ? limits.topicAliasMaximum : 0);
  }

  /** Seeds the QoS 2 packet ids a resumed session has received but not seen released. */
  restore(packetIds: Iterable<number>): void {
    for (const id of packetIds) (this.#awaitingPubrel ??= new Set()).add(id);
  }

  /** Inbound QoS 1/2 messages the client may count as unacknowledged. */
  get inFlight(): number {
    return this.#qos1InFlight + (this.#awaitingPubrel?.size ?? 0);
  }

  /**
   * A PUBLISH from the client: checks it against the server's capabilities, resolves its Topic
   * Alias and emits the `publish` effect (plus `inbound-qos2-received` for a new QoS 2 id).
   * A QoS 2 id awaiting PUBREL is a duplicate: answered with PUBREC again, never delivered twice
   * [MQTT-4.3.3-10]. An id the app still holds is ignored (its acknowledgement is on the way).
   * Past the server's Receive Maximum, which the client must respect [MQTT-3.3.4-7]: Receive
   * Maximum exceeded, 0x93 (spec §3.3.4).
   */
  onPublish(packet: PublishPacket): Violation | undefined {
    const refused = this.#checkCapabilities(packet);
    if (refused !== undefined) return refused;
    const resolved = this.#aliases.resolve(packet.topic, packet.properties.topicAlias);
    if (!resolved.ok) return resolved;
    if (topicLevels(resolved.topic) > this.#limits.maximumTopicLevels) {
      return violation(ReasonCode.TopicNameInvalid, `topic deeper than ${this.#limits.maximumTopicLevels} levels`);
    }
    // Object literals, not spreads: this runs once per inbound PUBLISH.
    const properties = withoutTopicAlias(packet.properties);
    const topic = resolved.topic;
    const id = packet.packetId;
    if (packet.qos === 0 || id === undefined) {
      this.#outbox.effect({ kind: "publish", topic, retain: packet.retain, dup: packet.dup, payload: packet.payload, properties, qos: 0 });
      return undefined;
    }
    if (this.#awaitingApp?.has(id) === true) return undefined;
    if (packet.qos === 2 && this.#awaitingPubrel?.has(id) === true) {
      this.#outbox.send({ type: "pubrec", packetId: id, reasonCode: ReasonCode.Success, properties: {} });
      return undefined;
    }
    if (this.#version === 5 && this.inFlight >= this.#limits.receiveMaximum) {
      return violation(ReasonCode.ReceiveMaximumExceeded, `more than ${this.#limits.receiveMaximum} unacknowledged QoS 1/2 PUBLISHes`);
    }
    (this.#awaitingApp ??= new Map()).set(id, packet.qos);
    this.#outbox.effect({ kind: "publish", topic, retain: packet.retain, dup: packet.dup, payload: packet.payload, properties, qos: packet.qos, packetId: id });
    if (packet.qos === 1) {
      this.#qos1InFlight++;
    } else {
      (this.#awaitingPubrel ??= new Set()).add(id);
      this.#outbox.effect({ kind: "inbound-qos2-received", packetId: id });
    }
    return undefined;
  }

  #checkCapabilities(packet: PublishPacket): Violation | undefined {
    if (this.#version !== 5) return undefined;
    if (packet.properties.subscriptionIdentifiers !== undefined) {
      return violation(ReasonCode.ProtocolError, "Subscription Identifier in a client PUBLISH"); // [MQTT-3.3.4-6]
    }
    if (packet.qos > this.#limits.maximumQoS) {
      return violation(ReasonCode.QoSNotSupported, `QoS ${packet.qos} above the Maximum QoS`); // [MQTT-3.2.2-11]
    }
    if (packet.retain && !this.#limits.retainAvailable) {
      return violation(ReasonCode.RetainNotSupported, "retain is not available"); // [MQTT-3.2.2-14]
    }
    return undefined;
  }

  /**
   * Sends the acknowledgement of a PUBLISH the app has dealt with: PUBACK for QoS 1, PUBREC for
   * QoS 2. A QoS 2 refusal (reason >= 0x80) ends the flow, releasing the id. Returns false for an
   * id that awaits no acknowledgement.
   */
  acknowledge(packetId: number, reasonCode: number, reasonString: string | undefined): boolean {
    const qos = this.#awaitingApp?.get(packetId);
    if (qos === undefined) return false;
    this.#awaitingApp?.delete(packetId);
    const properties = reasonString === undefined ? {} : { reasonString };
    if (qos === 1) {
      this.#qos1InFlight--;
      this.#outbox.send({ type: "puback", packetId, reasonCode, properties });
      return true;
    }
    if (reasonCode >= 0x80) this.#release(packetId);
    this.#outbox.send({ type: "pubrec", packetId, reasonCode, properties });
    return true;
  }

  /**
   * PUBREL: releases the id and answers PUBCOMP; an unknown id gets PUBCOMP 0x92 (spec §4.3.3).
   * A PUBREL for a message whose PUBREC was not sent yet is a Protocol Error.
   */
  onPubrel(packetId: number): Violation | undefined {
    if (this.#awaitingApp?.has(packetId) === true) {
      return violation(ReasonCode.ProtocolError, `PUBREL ${packetId} before PUBREC`);
    }
    if (this.#awaitingPubrel?.has(packetId) !== true) {
      this.#outbox.send({ type: "pubcomp", packetId, reasonCode: ReasonCode.PacketIdentifierNotFound, properties: {} });
      return undefined;
    }
    this.#release(packetId);
    this.#outbox.send({ type: "pubcomp", packetId, reasonCode: ReasonCode.Success, properties: {} });
    return undefined;
  }

  #release(packetId: number): void {
    this.#awaitingPubrel?.delete(packetId);
    this.#outbox.effect({ kind: "inbound-qos2-released", packetId });
  }
}
