/** One User Property: a name/value string pair. Order is preserved and duplicates are allowed. */
export type UserProperty = readonly [name: string, value: string];

/**
 * Every MQTT 5 property (spec §2.2.2.2), by name. Each packet type only allows a subset; the
 * per-packet types below pick it. A property that is absent is `undefined` (the spec default
 * applies, e.g. Receive Maximum 65535).
 */
export interface Properties {
  /** 0x01 byte, PUBLISH and Will: 0 unspecified bytes, 1 UTF-8 payload. */
  readonly payloadFormatIndicator?: 0 | 1;
  /** 0x02 four-byte integer, PUBLISH and Will: lifetime in seconds. */
  readonly messageExpiryInterval?: number;
  /** 0x03 UTF-8 string, PUBLISH and Will. */
  readonly contentType?: string;
  /** 0x08 UTF-8 string (a topic name), PUBLISH and Will. */
  readonly responseTopic?: string;
  /** 0x09 binary data, PUBLISH and Will. */
  readonly correlationData?: Uint8Array;
  /** 0x0B variable byte integer 1..268435455, PUBLISH (server to client; may repeat). */
  readonly subscriptionIdentifiers?: readonly number[];
  /** 0x0B variable byte integer 1..268435455, SUBSCRIBE (at most one). */
  readonly subscriptionIdentifier?: number;
  /** 0x11 four-byte integer, CONNECT, CONNACK, DISCONNECT: seconds (0xFFFFFFFF never expires). */
  readonly sessionExpiryInterval?: number;
  /** 0x12 UTF-8 string, CONNACK. */
  readonly assignedClientIdentifier?: string;
  /** 0x13 two-byte integer, CONNACK: keep alive the server imposes, seconds. */
  readonly serverKeepAlive?: number;
  /** 0x15 UTF-8 string, CONNECT, CONNACK, AUTH. */
  readonly authenticationMethod?: string;
  /** 0x16 binary data, CONNECT, CONNACK, AUTH (only with an Authentication Method). */
  readonly authenticationData?: Uint8Array;
  /** 0x17 byte 0/1, CONNECT. */
  readonly requestProblemInformation?: boolean;
  /** 0x18 four-byte integer, Will: seconds. */
  readonly willDelayInterval?: number;
  /** 0x19 byte 0/1, CONNECT. */
  readonly requestResponseInformation?: boolean;
  /** 0x1A UTF-8 string, CONNACK. */
  readonly responseInformation?: string;
  /** 0x1C UTF-8 string, CONNACK and DISCONNECT. */
  readonly serverReference?: string;
  /** 0x1F UTF-8 string, every packet with a reason code. */
  readonly reasonString?: string;
  /** 0x21 two-byte integer 1..65535, CONNECT and CONNACK. */
  readonly receiveMaximum?: number;
  /** 0x22 two-byte integer, CONNECT and CONNACK. */
  readonly topicAliasMaximum?: number;
  /** 0x23 two-byte integer 1..65535, PUBLISH. */
  readonly topicAlias?: number;
  /** 0x24 byte 0/1, CONNACK. */
  readonly maximumQoS?: 0 | 1;
  /** 0x25 byte 0/1, CONNACK. */
  readonly retainAvailable?: boolean;
  /** 0x26 string pairs, every packet with properties; ordered, may repeat. */
  readonly userProperties?: readonly UserProperty[];
  /** 0x27 four-byte integer 1..4294967295, CONNECT and CONNACK. */
  readonly maximumPacketSize?: number;
  /** 0x28 byte 0/1, CONNACK. */
  readonly wildcardSubscriptionAvailable?: boolean;
  /** 0x29 byte 0/1, CONNACK. */
  readonly subscriptionIdentifiersAvailable?: boolean;
  /** 0x2A byte 0/1, CONNACK. */
  readonly sharedSubscriptionAvailable?: boolean;
}

/** Properties allowed in CONNECT. */
export type ConnectProperties = Pick<
  Properties,
  | "sessionExpiryInterval"
  | "receiveMaximum"
  | "maximumPacketSize"
  | "topicAliasMaximum"
  | "requestResponseInformation"
  | "requestProblemInformation"
  | "userProperties"
  | "authenticationMethod"
  | "authenticationData"
>;

/** Properties allowed in a CONNECT's Will Properties. */
export type WillProperties = Pick<
  Properties,
  | "willDelayInterval"
  | "payloadFormatIndicator"
  | "messageExpiryInterval"
  | "contentType"
  | "responseTopic"
  | "correlationData"
  | "userProperties"
>;

/** Properties allowed in CONNACK. */
export type ConnackProperties = Pick<
  Properties,
  | "sessionExpiryInterval"
  | "receiveMaximum"
  | "maximumQoS"
  | "retainAvailable"
  | "maximumPacketSize"
  | "assignedClientIdentifier"
  | "topicAliasMaximum"
  | "reasonString"
  | "userProperties"
  | "wildcardSubscriptionAvailable"
  | "subscriptionIdentifiersAvailable"
  | "sharedSubscriptionAvailable"
  | "serverKeepAlive"
  | "responseInformation"
  | "serverReference"
  | "authenticationMethod"
  | "authenticationData"
>;

/** Properties allowed in PUBLISH. */
export type PublishProperties = Pick<
  Properties,
  | "payloadFormatIndicator"
  | "messageExpiryInterval"
  | "topicAlias"
  | "responseTopic"
  | "correlationData"
  | "userProperties"
  | "subscriptionIdentifiers"
  | "contentType"
>;

/** Properties allowed in PUBACK, PUBREC, PUBREL, PUBCOMP, SUBACK and UNSUBACK. */
export type AckProperties = Pick<Properties, "reasonString" | "userProperties">;

/** Properties allowed in SUBSCRIBE. */
export type SubscribeProperties = Pick<Properties, "subscriptionIdentifier" | "userProperties">;

/** Properties allowed in UNSUBSCRIBE. */
export type UnsubscribeProperties = Pick<Properties, "userProperties">;

/** Properties allowed in DISCONNECT. */
export type DisconnectProperties = Pick<
  Properties,
  "sessionExpiryInterval" | "reasonString" | "userProperties" | "serverReference"
>;

/** Properties allowed in AUTH. */
export type AuthProperties = Pick<
  Properties,
  "authenticationMethod" | "authenticationData" | "reasonString" | "userProperties"
>;
