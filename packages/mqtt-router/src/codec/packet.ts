import type {
  AckProperties,
  AuthProperties,
  ConnackProperties,
  ConnectProperties,
  DisconnectProperties,
  PublishProperties,
  SubscribeProperties,
  UnsubscribeProperties,
  WillProperties,
} from "./property-types.js";

/** Quality of service level. */
export type QoS = 0 | 1 | 2;

/** Protocol levels a connection can run: 4 is MQTT 3.1.1, 5 is MQTT 5.0. */
export type ProtocolVersion = 4 | 5;

/**
 * Protocol levels a CONNECT can announce and still be decoded. Level 3 (MQTT 3.1, protocol name
 * "MQIsdp") is decoded only so the protocol layer can refuse it properly with CONNACK return
 * code 0x01 (unacceptable protocol version); no other packet is decoded as 3.1.
 */
export type ConnectProtocolVersion = 3 | ProtocolVersion;

/** Fixed-header packet type numbers (spec §2.1.2). */
export const PacketType = {
  CONNECT: 1,
  CONNACK: 2,
  PUBLISH: 3,
  PUBACK: 4,
  PUBREC: 5,
  PUBREL: 6,
  PUBCOMP: 7,
  SUBSCRIBE: 8,
  SUBACK: 9,
  UNSUBSCRIBE: 10,
  UNSUBACK: 11,
  PINGREQ: 12,
  PINGRESP: 13,
  DISCONNECT: 14,
  AUTH: 15,
} as const;

/** A CONNECT's Will Message. */
export interface Will {
  /** Where the server publishes the will; a topic name, never a filter. */
  readonly topic: string;
  /** The will's application message body, sent as given. */
  readonly payload: Uint8Array;
  /** QoS the will is published with (Will QoS flag). */
  readonly qos: QoS;
  /** Will Retain flag: publish the will as a retained message. */
  readonly retain: boolean;
  /** MQTT 5 Will Properties (empty for 3.1.1). */
  readonly properties: WillProperties;
}

/** CONNECT (client to server). */
export interface ConnectPacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "connect";
  /** Protocol level from the variable header; also selects the wire format. */
  readonly protocolVersion: ConnectProtocolVersion;
  /** Clean Start (MQTT 5) / Clean Session (3.1.1). */
  readonly cleanStart: boolean;
  /** Keep alive in seconds (0 disables it). */
  readonly keepAlive: number;
  /** May be empty (the server then assigns one, or refuses in 3.1.1 without clean session). */
  readonly clientId: string;
  /** Published by the server if the connection ends without a normal DISCONNECT. */
  readonly will?: Will;
  /** For the app's authenticator; the codec does not interpret it. */
  readonly username?: string;
  /** Binary; MQTT 5 allows a password without a username, 3.1.1 does not. */
  readonly password?: Uint8Array;
  /** MQTT 5 CONNECT properties (empty for 3.1.1 and 3.1). */
  readonly properties: ConnectProperties;
}

/**
 * The Session Expiry Interval (seconds) meaning the session never expires; also 3.1.1's
 * CleanSession=0, and the largest interval a server may grant.
 */
export const SESSION_NEVER_EXPIRES = 0xffff_ffff;

/** CONNACK (server to client). */
export interface ConnackPacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "connack";
  /** The server resumed a stored session; always false when the connection is refused. */
  readonly sessionPresent: boolean;
  /** MQTT 5 reason code, or the 3.1.1 return code (0..5) on a 3.1.1 connection. */
  readonly reasonCode: number;
  /** MQTT 5 CONNACK properties (the server's limits, an assigned client id); empty on 3.1.1. */
  readonly properties: ConnackProperties;
}

/**
 * A QoS 0 PUBLISH: no packet id, DUP always 0 [MQTT-3.3.1-2]. It also holds the fields every
 * PUBLISH has, which {@link PublishQoS12Packet} takes from it (no third, unexported base type).
 */
export interface PublishQoS0Packet {
  /** Tag in the {@link Packet} union. */
  readonly type: "publish";
  /** Store the message as the topic's retained message (inbound), or it was one (outbound). */
  readonly retain: boolean;
  /** May be empty in MQTT 5 when `properties.topicAlias` names the topic. */
  readonly topic: string;
  /** A view into the received bytes when decoded (no copy). */
  readonly payload: Uint8Array;
  /** MQTT 5 PUBLISH properties (Topic Alias, expiry, user properties...); empty on 3.1.1. */
  readonly properties: PublishProperties;
  /** Narrows {@link PublishPacket} to the form without a packet id. */
  readonly qos: 0;
  /** Never set: a QoS 0 message is never redelivered. */
  readonly dup: false;
  /** Absent: QoS 0 is never acknowledged, so it needs no id. */
  readonly packetId?: never;
}

/** A QoS 1 or 2 PUBLISH: a packet id 1..65535; DUP marks a redelivery. */
export interface PublishQoS12Packet extends Omit<PublishQoS0Packet, "qos" | "dup" | "packetId"> {
  /** Narrows {@link PublishPacket} to the form with a packet id. */
  readonly qos: 1 | 2;
  /** Set when this is a resend of a PUBLISH the receiver may already have seen. */
  readonly dup: boolean;
  /** Pairs the PUBLISH with its acknowledgements (1..65535). */
  readonly packetId: number;
}

/**
 * PUBLISH (both directions), discriminated by `qos`: `if (p.qos !== 0)` narrows to the form
 * that has a `packetId`.
 */
export type PublishPacket = PublishQoS0Packet | PublishQoS12Packet;

/** PUBACK, PUBREC, PUBREL or PUBCOMP: the QoS 1/2 acknowledgement family. */
export interface PubAckPacket {
  /** Tag in the {@link Packet} union; one shape serves all four acknowledgements. */
  readonly type: "puback" | "pubrec" | "pubrel" | "pubcomp";
  /** The packet id of the PUBLISH (or PUBREC/PUBREL) being acknowledged. */
  readonly packetId: number;
  /** MQTT 5 reason code; always 0 (success) on 3.1.1, where the field does not exist. */
  readonly reasonCode: number;
  /** MQTT 5 reason string and user properties; empty on 3.1.1. */
  readonly properties: AckProperties;
}

/** One entry of a SUBSCRIBE. The options beyond `qos` are MQTT 5 only (false/0 on 3.1.1). */
export interface Subscription {
  /** The filter to match topics against (wildcards and `$share/` allowed). */
  readonly topicFilter: string;
  /** The highest QoS the client accepts for this filter. */
  readonly qos: QoS;
  /** Do not send the client its own publishes (MQTT 5; not allowed on shared subscriptions). */
  readonly noLocal: boolean;
  /** Keep the RETAIN flag of forwarded messages instead of clearing it (MQTT 5). */
  readonly retainAsPublished: boolean;
  /** 0 send retained on subscribe, 1 only if new subscription, 2 never. */
  readonly retainHandling: 0 | 1 | 2;
}

/** SUBSCRIBE (client to server): at least one subscription. */
export interface SubscribePacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "subscribe";
  /** Echoed by the SUBACK that answers it. */
  readonly packetId: number;
  /** In packet order; the SUBACK's reason codes follow the same order. */
  readonly subscriptions: readonly Subscription[];
  /** MQTT 5 Subscription Identifier and user properties; empty on 3.1.1. */
  readonly properties: SubscribeProperties;
}

/** SUBACK (server to client): one reason code (3.1.1: return code) per subscription. */
export interface SubackPacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "suback";
  /** The packet id of the SUBSCRIBE it answers. */
  readonly packetId: number;
  /** Granted QoS (0..2) or a failure code, one per subscription in SUBSCRIBE order. */
  readonly reasonCodes: readonly number[];
  /** MQTT 5 reason string and user properties; empty on 3.1.1. */
  readonly properties: AckProperties;
}

/** UNSUBSCRIBE (client to server): at least one topic filter. */
export interface UnsubscribePacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "unsubscribe";
  /** Echoed by the UNSUBACK that answers it. */
  readonly packetId: number;
  /** The filters to remove, each exactly as it was subscribed. */
  readonly topicFilters: readonly string[];
  /** MQTT 5 user properties; empty on 3.1.1. */
  readonly properties: UnsubscribeProperties;
}

/** UNSUBACK (server to client): one reason code per filter in MQTT 5, none in 3.1.1. */
export interface UnsubackPacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "unsuback";
  /** The packet id of the UNSUBSCRIBE it answers. */
  readonly packetId: number;
  /** One per filter in UNSUBSCRIBE order (MQTT 5); empty on 3.1.1. */
  readonly reasonCodes: readonly number[];
  /** MQTT 5 reason string and user properties; empty on 3.1.1. */
  readonly properties: AckProperties;
}

/** PINGREQ (client to server). */
export interface PingreqPacket {
  /** Tag in the {@link Packet} union; the packet has no other field. */
  readonly type: "pingreq";
}

/** PINGRESP (server to client). */
export interface PingrespPacket {
  /** Tag in the {@link Packet} union; the packet has no other field. */
  readonly type: "pingresp";
}

/** DISCONNECT (client to server; also server to client in MQTT 5). */
export interface DisconnectPacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "disconnect";
  /** MQTT 5 reason code; always 0 on 3.1.1. */
  readonly reasonCode: number;
  /** MQTT 5 DISCONNECT properties (session expiry change, reason string, server reference). */
  readonly properties: DisconnectProperties;
}

/** AUTH (MQTT 5 only, both directions). */
export interface AuthPacket {
  /** Tag in the {@link Packet} union. */
  readonly type: "auth";
  /** 0x00 success, 0x18 continue authentication, 0x19 re-authenticate. */
  readonly reasonCode: number;
  /** The authentication method and data of this step. */
  readonly properties: AuthProperties;
}

/**
 * Every MQTT control packet, discriminated by `type`. Switch over `packet.type` with a `never`
 * default to handle them all. Fields that only exist in MQTT 5 (reason codes, properties) are
 * always present: 0 / an empty object on 3.1.1, so code reading them needs no version branches.
 */
export type Packet =
  | ConnectPacket
  | ConnackPacket
  | PublishPacket
  | PubAckPacket
  | SubscribePacket
  | SubackPacket
  | UnsubscribePacket
  | UnsubackPacket
  | PingreqPacket
  | PingrespPacket
  | DisconnectPacket
  | AuthPacket;

/** The `type` tag of a packet. */
export type PacketKind = Packet["type"];
