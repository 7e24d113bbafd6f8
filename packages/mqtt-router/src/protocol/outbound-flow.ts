import type { PublishPacket, QoS } from "../codec/packet.js";
import type { PublishProperties } from "../codec/property-types.js";
import type { PublishTemplate } from "../codec/publish-template.js";
import { NO_PROPERTIES } from "../codec/properties.js";
import { ReasonCode } from "../codec/reason-codes.js";
import type { Outbox } from "./outbox.js";
import { withoutTopicAlias, type OutboundTopicAliases } from "./topic-alias.js";

/** A message the router delivers to this connection. */
export interface OutboundMessage {
  readonly topic: string;
  readonly payload: Uint8Array;
  /** Effective QoS (already min(publish QoS, granted QoS)). */
  readonly qos: QoS;
  readonly retain: boolean;
  /** Assigned by the router (session state); required exactly when qos > 0. */
  readonly packetId?: number;
  /** True on a resend of an unacknowledged message after reconnect [MQTT-3.3.1-1]. */
  readonly dup: boolean;
  /** PUBLISH properties (a `topicAlias` here is ignored: aliases are per connection). */
  readonly properties?: PublishProperties;
  /**
   * The same message pre-encoded once for fan-out (codec `preparePublish`), in this
   * connection's protocol version and with the same QoS: its bytes are sent with this packet id
   * and DUP patched in, no re-encoding and no Topic Alias. The fields above must describe it.
   */
  readonly encoded?: PublishTemplate;
}

/**
 * Outcome of `deliver`. Anything but `sent` means nothing was written and no send slot used:
 * `quota-exhausted` — the client's Receive Maximum is reached [MQTT-4.9.0-2], try again after an ack;
 * `too-large` — bigger than the client's Maximum Packet Size, discarded as the spec requires
 * [MQTT-3.1.2-25] (the router counts it and releases the id); `packet-id-in-use` — that id is
 * still in flight; `invalid` — the message cannot be encoded; `not-connected` — no CONNACK yet or closed.
 */
export type DeliverResult =
  | { readonly status: "sent" }
  | { readonly status: "quota-exhausted" }
  | { readonly status: "too-large" }
  | { readonly status: "packet-id-in-use" }
  | { readonly status: "invalid"; readonly detail: string }
  | { readonly status: "not-connected" };

/** A PUBLISH ready to go: `commit` records what sending it changes (a new Topic Alias). */
interface Prepared {
  readonly packet: PublishPacket;
  readonly bytes: Uint8Array;
  readonly commit: () => void;
}

/** A `deliver` refusal. */
type Refusal = Exclude<DeliverResult, { readonly status: "sent" }>;

function noop(): void {
  // nothing to record
}

/** The PUBLISH packet of `message` with the given topic and properties. */
function publishPacket(message: OutboundMessage, topic: string, properties: PublishProperties): PublishPacket {
  // Literals, not spreads of a shared base: this runs once per delivery.
  const id = message.packetId;
  return message.qos === 0 || id === undefined
    ? { type: "publish", retain: message.retain, topic, payload: message.payload, properties, qos: 0, dup: false }
    : { type: "publish", retain: message.retain, topic, payload: message.payload, properties, qos: message.qos, dup: message.dup, packetId: id };
}

/** Which acknowledgement an outbound flow waits for. */
type Awaiting = "puback" | "pubrec" | "pubcomp";

/**
 * The server's side of QoS 1/2 flows towards the client, for this connection: the send quota
 * (the client's Receive Maximum, [MQTT-3.3.4-9]) and the acknowledgement each packet id awaits.
 * The messages themselves and their ids are session state kept by the router.
 */
export class OutboundFlow {
  // Made on first use: an idle client never needs it.
  #inFlight: Map<number, Awaiting> | undefined;

  readonly #outbox: Outbox;
  readonly #receiveMaximum: number;
  readonly #aliases: OutboundTopicAliases | undefined;

  /**
   * @param outbox where packets and effects go
   * @param receiveMaximum the client's Receive Maximum (65535 when absent)
   * @param aliases outbound Topic Aliases, or undefined when not used on this connection
   */
  constructor(outbox: Outbox, receiveMaximum: number, aliases: OutboundTopicAliases | undefined) {
    this.#outbox = outbox;
    this.#receiveMaximum = receiveMaximum;
    this.#aliases = aliases;
  }

  /** QoS 1/2 flows not yet finished (each holds a send slot). */
  get inFlight(): number {
    return this.#inFlight?.size ?? 0;
  }

  /** Send slots left: how many more QoS 1/2 PUBLISHes may be sent now. */
  get quota(): number {
    return Math.max(0, this.#receiveMaximum - (this.#inFlight?.size ?? 0));
  }

  /** True when this connection applies outbound Topic Aliases (pre-encoded PUBLISHes then lose them). */
  get usesTopicAliases(): boolean {
    return this.#aliases !== undefined;
  }

  /**
   * Sends a PUBLISH, applying a Topic Alias when the client accepts them (not to pre-encoded
   * messages, whose bytes are fixed). Refusals send nothing and use no slot.
   */
  deliver(message: OutboundMessage): DeliverResult {
    const id = message.packetId;
    if (message.qos > 0) {
      if (id === undefined || !Number.isInteger(id) || id < 1 || id > 0xffff) {
        return { status: "invalid", detail: "QoS > 0 needs a packet id in 1..65535" };
      }
      if (this.#inFlight?.has(id) === true) return { status: "packet-id-in-use" };
      if ((this.#inFlight?.size ?? 0) >= this.#receiveMaximum) return { status: "quota-exhausted" };
    }
    const prepared = message.encoded === undefined ? this.#encode(message) : this.#fromTemplate(message, message.encoded);
    if (!("bytes" in prepared)) return prepared;
    prepared.commit();
    if (id !== undefined && message.qos > 0) (this.#inFlight ??= new Map()).set(id, message.qos === 1 ? "puback" : "pubrec");
    this.#outbox.sendEncoded(prepared.packet, prepared.bytes);
    return { status: "sent" };
  }

  #encode(message: OutboundMessage): Prepared | Refusal {
    const plan = this.#aliases?.plan(message.topic);
    const props = withoutTopicAlias(message.properties ?? NO_PROPERTIES);
    const properties: PublishProperties = plan?.alias === undefined ? props : { ...props, topicAlias: plan.alias };
    const packet = publishPacket(message, plan?.topic ?? message.topic, properties);
    const encoded = this.#outbox.encode(packet);
    if (!encoded.ok) {
      return encoded.error.reasonCode === ReasonCode.PacketTooLarge
        ? { status: "too-large" }
        : { status: "invalid", detail: encoded.error.message };
    }
    return { packet, bytes: encoded.bytes, commit: plan?.commit ?? noop };
  }

  #fromTemplate(message: OutboundMessage, template: PublishTemplate): Prepared | Refusal {
    if (template.qos !== message.qos) return { status: "invalid", detail: "template QoS differs from the message QoS" };
    if (template.bytes.length > this.#outbox.peer.maximumPacketSize) return { status: "too-large" };
    const properties = withoutTopicAlias(message.properties ?? NO_PROPERTIES);
    const packet = publishPacket(message, message.topic, properties);
    const bytes = packet.packetId === undefined ? template.bytes : template.withPacketId(packet.packetId, packet.dup);
    return { packet, bytes, commit: noop };
  }

  /**
   * Resends the PUBREL of a QoS 2 message whose PUBREC arrived on an earlier connection
   * [MQTT-4.4.0-1]. Never held back by the quota [MQTT-3.3.4-10], though the flow occupies a slot.
   */
  resendPubrel(packetId: number): void {
    (this.#inFlight ??= new Map()).set(packetId, "pubcomp");
    this.#outbox.send({ type: "pubrel", packetId, reasonCode: ReasonCode.Success, properties: {} });
  }

  /** PUBACK: a QoS 1 flow is done. Unknown ids are ignored. */
  onPuback(packetId: number, reasonCode: number): void {
    if (this.#inFlight?.get(packetId) !== "puback") return;
    this.#inFlight.delete(packetId);
    this.#outbox.effect({ kind: "delivery-acked", packetId, reasonCode });
  }

  /**
   * PUBREC: below 0x80 answer PUBREL (again, for a repeated PUBREC); 0x80 and above end the flow
   * without PUBREL [MQTT-4.3.3-4], [MQTT-4.4.0-2]. An unknown id gets PUBREL 0x92.
   */
  onPubrec(packetId: number, reasonCode: number): void {
    const awaiting = this.#inFlight?.get(packetId);
    if (awaiting === "pubcomp") {
      this.#outbox.send({ type: "pubrel", packetId, reasonCode: ReasonCode.Success, properties: {} });
      return;
    }
    if (awaiting !== "pubrec") {
      this.#outbox.send({ type: "pubrel", packetId, reasonCode: ReasonCode.PacketIdentifierNotFound, properties: {} });
      return;
    }
    if (reasonCode >= 0x80) {
      this.#inFlight?.delete(packetId);
      this.#outbox.effect({ kind: "delivery-rejected", packetId, reasonCode });
      return;
    }
    (this.#inFlight ??= new Map()).set(packetId, "pubcomp");
    this.#outbox.effect({ kind: "delivery-received", packetId, reasonCode });
    this.#outbox.send({ type: "pubrel", packetId, reasonCode: ReasonCode.Success, properties: {} });
  }

  /** PUBCOMP: a QoS 2 flow is done. Unknown ids are ignored. */
  onPubcomp(packetId: number, reasonCode: number): void {
    if (this.#inFlight?.get(packetId) !== "pubcomp") return;
    this.#inFlight.delete(packetId);
    this.#outbox.effect({ kind: "delivery-completed", packetId, reasonCode });
  }
}
