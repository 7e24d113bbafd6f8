import type { Packet, ProtocolVersion, QoS, Subscription, Will } from "../codec/packet.js";
import type { PublishProperties, UserProperty } from "../codec/property-types.js";

/**
 * A CONNECT that passed the protocol checks: everything the router and the authenticator need.
 * The app answers with `accept` or `reject` (after an optional AUTH exchange).
 */
export interface ConnectRequestEffect {
  /** Tag in the {@link Effect} union. */
  readonly kind: "connect-request";
  /** The connection's protocol level; the router keeps it for the session's deliveries. */
  readonly protocolVersion: ProtocolVersion;
  /** The client id to use: the client's, or a generated one when it sent an empty id. */
  readonly clientId: string;
  /** True when the server generated `clientId` [MQTT-3.1.3-6]. */
  readonly clientIdAssigned: boolean;
  /** Discard any stored session and start a new one (Clean Start / Clean Session). */
  readonly cleanStart: boolean;
  /** Effective keep alive in seconds (Server Keep Alive when configured); 0 disables it. */
  readonly keepAlive: number;
  /** Effective Session Expiry Interval in seconds (the client's, capped by the server). */
  readonly sessionExpiryInterval: number;
  /** From CONNECT, for the app's authenticator. */
  readonly username?: string;
  /** From CONNECT, for the app's authenticator; binary, so passwords need not be text. */
  readonly password?: Uint8Array;
  /** The will to arm once the connection is accepted. */
  readonly will?: Will;
  /** The client's Receive Maximum: the server's send quota. */
  readonly receiveMaximum: number;
  /** The client's Maximum Packet Size, if it set one. */
  readonly maximumPacketSize?: number;
  /** Highest Topic Alias the server may use towards the client. */
  readonly topicAliasMaximum: number;
  /** The client asked for Response Information in the CONNACK (MQTT 5). */
  readonly requestResponseInformation: boolean;
  /** False: the client asked for no Reason String or User Properties on packets other than PUBLISH, CONNACK and DISCONNECT. */
  readonly requestProblemInformation: boolean;
  /** The CONNECT's user properties, for the authenticator or the app's hooks. */
  readonly userProperties: readonly UserProperty[];
  /** Present when the client asked for enhanced authentication (MQTT 5). */
  readonly authentication?: { readonly method: string; readonly data?: Uint8Array };
}

/** An AUTH packet from the client, during CONNECT or a re-authentication (MQTT 5). */
export interface AuthEffect {
  readonly kind: "auth";
  /** `connect` before CONNACK, `reauthenticate` after it. */
  readonly phase: "connect" | "reauthenticate";
  /** 0x18 Continue authentication, or 0x19 Re-authenticate (start of a re-authentication). */
  readonly reasonCode: 0x18 | 0x19;
  readonly method: string;
  readonly data?: Uint8Array;
  readonly userProperties: readonly UserProperty[];
}

/**
 * An application message the client published, with its topic resolved (no Topic Alias left).
 * For QoS 1 and 2 the app commits it, then calls `acknowledgePublish(packetId, reasonCode)`.
 */
export interface PublishEffect {
  readonly kind: "publish";
  readonly topic: string;
  readonly qos: QoS;
  readonly retain: boolean;
  /** The client's DUP flag, for information only: outbound DUP is never copied from it [MQTT-3.3.1-3]. */
  readonly dup: boolean;
  readonly packetId?: number;
  readonly payload: Uint8Array;
  /** The PUBLISH properties without `topicAlias`, which is per connection. */
  readonly properties: PublishProperties;
}

/** A QoS 2 packet id entered the session's "received, awaiting PUBREL" set: persist it. */
export interface InboundQos2ReceivedEffect {
  readonly kind: "inbound-qos2-received";
  readonly packetId: number;
}

/** A QoS 2 packet id left the "received, awaiting PUBREL" set (PUBREL, or refused by the app). */
export interface InboundQos2ReleasedEffect {
  readonly kind: "inbound-qos2-released";
  readonly packetId: number;
}

/** SUBSCRIBE: the entries the protocol layer did not refuse itself. Answer with `subscribed`. */
export interface SubscribeEffect {
  readonly kind: "subscribe";
  readonly packetId: number;
  readonly subscriptions: readonly Subscription[];
  readonly subscriptionIdentifier?: number;
  readonly userProperties: readonly UserProperty[];
}

/** UNSUBSCRIBE. Answer with `unsubscribed`. */
export interface UnsubscribeEffect {
  readonly kind: "unsubscribe";
  readonly packetId: number;
  readonly topicFilters: readonly string[];
  readonly userProperties: readonly UserProperty[];
}

/** The outbound flow of a delivered QoS 1/2 message moved on; the router updates its session. */
export interface DeliveryEffect {
  /**
   * `delivery-acked`: PUBACK (QoS 1 done). `delivery-received`: PUBREC < 0x80 (PUBREL sent, now
   * awaiting PUBCOMP). `delivery-rejected`: PUBREC >= 0x80 (QoS 2 flow ended [MQTT-4.4.0-2]).
   * `delivery-completed`: PUBCOMP (QoS 2 done). All but `delivery-received` free a send slot.
   */
  readonly kind: "delivery-acked" | "delivery-received" | "delivery-rejected" | "delivery-completed";
  readonly packetId: number;
  readonly reasonCode: number;
}

/** Why a connection ended. */
export type CloseCause =
  | "client-disconnect"
  | "server-disconnect"
  | "protocol-error"
  | "keepalive-timeout"
  | "connect-timeout"
  | "connect-rejected"
  | "connection-lost";

/**
 * The connection is over (always the last effect, emitted exactly once, before the `close`
 * action). The app releases the connection in the router and fires the will if `publishWill`.
 */
export interface ClosedEffect {
  /** Tag in the {@link Effect} union. */
  readonly kind: "closed";
  /** Why the connection ended, for logs and metrics. */
  readonly cause: CloseCause;
  /** The MQTT 5 reason code that describes the end (also for 3.1.1 connections). */
  readonly reasonCode: number;
  /** Human-readable detail for logs. */
  readonly detail: string;
  /** True when the session had a CONNACK'ed Will and the end was not a normal DISCONNECT (0x00). */
  readonly publishWill: boolean;
  /** Session Expiry Interval in force at the end (a client DISCONNECT may have changed it). */
  readonly sessionExpiryInterval: number;
}

/** Everything the protocol layer asks of the app and the router, discriminated by `kind`. */
export type Effect =
  | ConnectRequestEffect
  | AuthEffect
  | PublishEffect
  | InboundQos2ReceivedEffect
  | InboundQos2ReleasedEffect
  | SubscribeEffect
  | UnsubscribeEffect
  | DeliveryEffect
  | ClosedEffect;

/**
 * One step for the app, in order. `send`: write `bytes` (the encoded `packet`, kept for logs and
 * tests). `effect`: act on it before writing the sends that follow it (e.g. commit state).
 * `close`: close the network connection; nothing follows it.
 */
export type Action =
  | { readonly kind: "send"; readonly packet: Packet; readonly bytes: Uint8Array }
  | { readonly kind: "effect"; readonly effect: Effect }
  | { readonly kind: "close"; readonly reasonCode: number };
