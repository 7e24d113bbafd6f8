import type { ProtocolVersion, SubscribePacket, Subscription, UnsubscribePacket } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { parseSharedFilter, topicLevels } from "../codec/topic.js";
import type { ServerLimits } from "./options.js";
import type { Outbox } from "./outbox.js";
import { violation, type Violation } from "./violation.js";

/**
 * SUBACK entries: a code the protocol layer decided, or the position of the forwarded
 * subscription whose code the app decides (copies of one filter share a position).
 */
type SubackSlots = readonly (number | { readonly forwarded: number })[];

/**
 * SUBSCRIBE and UNSUBSCRIBE round trips: refuses what the server's capabilities exclude, hands
 * the rest to the app and turns its answer into SUBACK / UNSUBACK in the connection's format.
 */
export class SubscriptionRequests {
  // Made on first use: an idle subscribed client has none pending (memory per client).
  #subscribes: Map<number, SubackSlots> | undefined;
  #unsubscribes: Map<number, number> | undefined;

  readonly #outbox: Outbox;
  readonly #version: ProtocolVersion;
  readonly #limits: ServerLimits;

  /**
   * @param outbox where packets and effects go
   * @param version the connection's protocol version
   * @param limits the server capabilities in force
   */
  constructor(outbox: Outbox, version: ProtocolVersion, limits: ServerLimits) {
    this.#outbox = outbox;
    this.#version = version;
    this.#limits = limits;
  }

  /**
   * SUBSCRIBE. A Subscription Identifier the server does not support ends the connection (0xA1),
   * so do more filters than `maximumFiltersPerSubscribe` (0x97) and a filter deeper than
   * `maximumTopicLevels` (0x8F); shared or wildcard filters it does not support are refused per
   * entry (0x9E, 0xA2). A packet id still awaiting its SUBACK is refused with 0x91. Copies of one
   * filter are forwarded once and answered alike.
   */
  onSubscribe(packet: SubscribePacket): Violation | undefined {
    const subId = packet.properties.subscriptionIdentifier;
    if (subId !== undefined && !this.#limits.subscriptionIdentifiersAvailable) {
      return violation(ReasonCode.SubscriptionIdentifiersNotSupported, "Subscription Identifiers are not supported");
    }
    const max = this.#limits.maximumFiltersPerSubscribe;
    if (packet.subscriptions.length > max) return violation(ReasonCode.QuotaExceeded, `more than ${max} topic filters in one SUBSCRIBE`);
    const deep = packet.subscriptions.find((s) => topicLevels(s.topicFilter, this.#version) > this.#limits.maximumTopicLevels);
    if (deep !== undefined) return violation(ReasonCode.TopicFilterInvalid, `topic filter deeper than ${this.#limits.maximumTopicLevels} levels`);
    if (this.#subscribes?.has(packet.packetId) === true) {
      this.#sendSuback(packet.packetId, packet.subscriptions.map(() => ReasonCode.PacketIdentifierInUse));
      return undefined;
    }
    // Copies of one filter in a packet are one subscription: the last copy's options win, as if
    // each replaced the one before [MQTT-3.8.4-3], and its retained messages are looked up once.
    const forwarded: Subscription[] = [];
    const positions = new Map<string, number>();
    const slots = packet.subscriptions.map((s): number | { readonly forwarded: number } => {
      const refused = this.#refusal(s);
      if (refused !== undefined) return refused;
      let position = positions.get(s.topicFilter);
      if (position === undefined) {
        position = forwarded.length;
        positions.set(s.topicFilter, position);
      }
      forwarded[position] = s;
      return { forwarded: position };
    });
    if (forwarded.length === 0) {
      this.#sendSuback(packet.packetId, slots.map((c) => (typeof c === "number" ? c : ReasonCode.UnspecifiedError)));
      return undefined;
    }
    (this.#subscribes ??= new Map()).set(packet.packetId, slots);
    this.#outbox.effect({
      kind: "subscribe",
      packetId: packet.packetId,
      subscriptions: forwarded,
      ...(subId === undefined ? {} : { subscriptionIdentifier: subId }),
      userProperties: packet.properties.userProperties ?? [],
    });
    return undefined;
  }

  /**
   * The app's verdicts, one per forwarded subscription, in order: granted QoS 0..2 or a failure
   * reason. Sends the SUBACK (3.1.1: any failure becomes 0x80). False when `packetId` awaits no
   * SUBACK or the number of codes is wrong.
   */
  subscribed(packetId: number, reasonCodes: readonly number[]): boolean {
    const subscribes = this.#subscribes;
    const slots = subscribes?.get(packetId);
    if (subscribes === undefined || slots === undefined) return false;
    if (new Set(slots.filter((s) => typeof s !== "number").map((s) => s.forwarded)).size !== reasonCodes.length) return false;
    subscribes.delete(packetId);
    if (subscribes.size === 0) this.#subscribes = undefined;
    this.#sendSuback(packetId, slots.map((s) => (typeof s === "number" ? s : (reasonCodes[s.forwarded] ?? ReasonCode.UnspecifiedError))));
    return true;
  }

  /** UNSUBSCRIBE: handed to the app. */
  onUnsubscribe(packet: UnsubscribePacket): void {
    (this.#unsubscribes ??= new Map()).set(packet.packetId, packet.topicFilters.length);
    this.#outbox.effect({
      kind: "unsubscribe",
      packetId: packet.packetId,
      topicFilters: packet.topicFilters,
      userProperties: packet.properties.userProperties ?? [],
    });
  }

  /**
   * The app's verdicts, one per filter (MQTT 5 sends them; 3.1.1 UNSUBACK has none). False when
   * `packetId` awaits no UNSUBACK or the number of codes is wrong.
   */
  unsubscribed(packetId: number, reasonCodes: readonly number[]): boolean {
    const unsubscribes = this.#unsubscribes;
    const count = unsubscribes?.get(packetId);
    if (unsubscribes === undefined || count === undefined || (this.#version === 5 && reasonCodes.length !== count)) return false;
    unsubscribes.delete(packetId);
    if (unsubscribes.size === 0) this.#unsubscribes = undefined;
    this.#outbox.send({ type: "unsuback", packetId, reasonCodes: this.#version === 5 ? reasonCodes : [], properties: {} });
    return true;
  }

  #refusal(s: Subscription): number | undefined {
    // `$share/` has no meaning in 3.1.1: there it is an ordinary filter.
    const shared = this.#version === 5 ? parseSharedFilter(s.topicFilter) : undefined;
    if (shared && !this.#limits.sharedSubscriptionAvailable) return ReasonCode.SharedSubscriptionsNotSupported;
    const filter = shared ? shared.filter : s.topicFilter;
    if (!this.#limits.wildcardSubscriptionAvailable && (filter.includes("+") || filter.includes("#"))) {
      return ReasonCode.WildcardSubscriptionsNotSupported;
    }
    return undefined;
  }

  #sendSuback(packetId: number, codes: readonly number[]): void {
    const reasonCodes = this.#version === 5 ? codes : codes.map((c) => (c <= 2 ? c : 0x80));
    this.#outbox.send({ type: "suback", packetId, reasonCodes, properties: {} });
  }
}
