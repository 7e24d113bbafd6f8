import { MAX_PACKET_SIZE } from "../codec/frame.js";
import { SESSION_NEVER_EXPIRES, type ConnackPacket, type ConnectPacket, type ProtocolVersion } from "../codec/packet.js";
import type { ConnackProperties, UserProperty } from "../codec/property-types.js";
import { ConnectReturnCode, ReasonCode } from "../codec/reason-codes.js";
import { topicLevels } from "../codec/topic.js";
import type { ConnectRequestEffect } from "./effects.js";
import type { ResolvedOptions, ServerLimits } from "./options.js";

/** Outcome of {@link checkConnect}: a request for the app, or a refusal to send in CONNACK. */
export type ConnectCheck =
  | { readonly ok: true; readonly request: ConnectRequestEffect }
  | {
      readonly ok: false;
      /** Format of the refusing CONNACK (3.1 clients get the 3.1.1 format). */
      readonly version: ProtocolVersion;
      readonly reasonCode: number;
      readonly detail: string;
    };

/** The app's answer to a `connect-request`. */
export interface AcceptParams {
  /** Whether the router resumed an existing session (forced false with Clean Start [MQTT-3.2.2-2]). */
  readonly sessionPresent: boolean;
  /** QoS 2 packet ids the resumed session received and has not seen released by PUBREL. */
  readonly inboundQos2PacketIds?: Iterable<number>;
  /**
   * Per-connection narrowing of the server limits (e.g. per user). The Maximum Packet Size is
   * not among them: the decoder enforces the configured one from the first byte.
   */
  readonly limits?: Partial<Omit<ServerLimits, "maximumPacketSize">>;
  /** Session Expiry Interval the server grants, when it differs from the request's. */
  readonly sessionExpiryInterval?: number;
  /** Final Authentication Data of an enhanced authentication. */
  readonly authenticationData?: Uint8Array;
  /** Response Information, sent only if the client asked for it. */
  readonly responseInformation?: string;
  readonly userProperties?: readonly UserProperty[];
}

/**
 * Validates a decoded CONNECT against the server's configuration: protocol level, Will QoS and
 * retain against the server's capabilities [MQTT-3.2.2-12], [MQTT-3.2.2-13], the client id
 * (empty ids get a generated one [MQTT-3.1.3-6], except in 3.1.1 without Clean Session, 3.1.1
 * [MQTT-3.1.3-8]; refused ids get 0x85 [MQTT-3.1.3-8]), and derives the effective keep alive
 * [MQTT-3.2.2-21], [MQTT-3.2.2-22] and session expiry.
 */
export function checkConnect(p: ConnectPacket, o: ResolvedOptions): ConnectCheck {
  const level = p.protocolVersion;
  if (level === 3 || !o.protocolVersions.includes(level)) {
    return refuse(level === 3 ? 4 : level, ReasonCode.UnsupportedProtocolVersion, `protocol level ${level} not supported`);
  }
  const v = level;
  if (p.will !== undefined && topicLevels(p.will.topic) > o.maximumTopicLevels) {
    return refuse(v, ReasonCode.TopicNameInvalid, `Will Topic deeper than ${o.maximumTopicLevels} levels`);
  }
  if (v === 5 && p.will !== undefined) {
    if (p.will.qos > o.maximumQoS) return refuse(v, ReasonCode.QoSNotSupported, `Will QoS ${p.will.qos} above ${o.maximumQoS}`);
    if (p.will.retain && !o.retainAvailable) return refuse(v, ReasonCode.RetainNotSupported, "Will Retain not supported");
  }
  let clientId = p.clientId;
  let clientIdAssigned = false;
  if (clientId.length === 0) {
    if (!o.allowEmptyClientId) return refuse(v, ReasonCode.ClientIdentifierNotValid, "empty client id not allowed");
    if (v === 4 && !p.cleanStart) {
      return refuse(v, ReasonCode.ClientIdentifierNotValid, "empty client id needs Clean Session"); // 3.1.1 [MQTT-3.1.3-8]
    }
    clientId = o.generateClientId();
    clientIdAssigned = true;
  } else if (clientId.length > o.clientIdMaxLength || (o.clientIdPattern !== undefined && !o.clientIdPattern.test(clientId))) {
    return refuse(v, ReasonCode.ClientIdentifierNotValid, "client id not accepted"); // [MQTT-3.1.3-8]
  }
  const props = p.properties;
  // 3.1.1 has no expiry: a clean session ends with the connection, a persistent one never expires.
  const requestedExpiry = v === 5 ? (props.sessionExpiryInterval ?? 0) : p.cleanStart ? 0 : SESSION_NEVER_EXPIRES;
  const method = props.authenticationMethod;
  const data = props.authenticationData;
  return {
    ok: true,
    request: {
      kind: "connect-request",
      protocolVersion: v,
      clientId,
      clientIdAssigned,
      cleanStart: p.cleanStart,
      keepAlive: v === 5 && o.serverKeepAlive !== undefined ? o.serverKeepAlive : p.keepAlive,
      sessionExpiryInterval: Math.min(requestedExpiry, o.maximumSessionExpiryInterval),
      ...(p.username === undefined ? {} : { username: p.username }),
      ...(p.password === undefined ? {} : { password: p.password }),
      ...(p.will === undefined ? {} : { will: p.will }),
      receiveMaximum: props.receiveMaximum ?? 65_535,
      ...(props.maximumPacketSize === undefined ? {} : { maximumPacketSize: props.maximumPacketSize }),
      topicAliasMaximum: props.topicAliasMaximum ?? 0,
      requestResponseInformation: props.requestResponseInformation ?? false,
      requestProblemInformation: props.requestProblemInformation ?? true,
      userProperties: props.userProperties ?? [],
      ...(method === undefined ? {} : { authentication: data === undefined ? { method } : { method, data } }),
    },
  };
}

function refuse(version: ProtocolVersion, reasonCode: number, detail: string): ConnectCheck {
  return { ok: false, version, reasonCode, detail };
}

/**
 * The CONNACK of an accepted connection. MQTT 5 properties announce only what differs from the
 * spec defaults, plus the assigned client id [MQTT-3.2.2-16] and a changed session expiry.
 */
export function acceptConnack(
  request: ConnectRequestEffect,
  requestedExpiry: number | undefined,
  params: AcceptParams,
  limits: ServerLimits,
  expiry: number,
): ConnackPacket {
  const sessionPresent = params.sessionPresent && !request.cleanStart;
  if (request.protocolVersion === 4) {
    return { type: "connack", sessionPresent, reasonCode: ConnectReturnCode.Accepted, properties: {} };
  }
  const p: { -readonly [K in keyof ConnackProperties]: ConnackProperties[K] } = {};
  if (requestedExpiry !== expiry) p.sessionExpiryInterval = expiry;
  if (limits.receiveMaximum < 65_535) p.receiveMaximum = limits.receiveMaximum;
  if (limits.maximumQoS < 2) p.maximumQoS = limits.maximumQoS === 0 ? 0 : 1;
  if (!limits.retainAvailable) p.retainAvailable = false;
  if (limits.maximumPacketSize < MAX_PACKET_SIZE) p.maximumPacketSize = limits.maximumPacketSize;
  if (request.clientIdAssigned) p.assignedClientIdentifier = request.clientId;
  if (limits.topicAliasMaximum > 0) p.topicAliasMaximum = limits.topicAliasMaximum;
  if (!limits.wildcardSubscriptionAvailable) p.wildcardSubscriptionAvailable = false;
  if (!limits.subscriptionIdentifiersAvailable) p.subscriptionIdentifiersAvailable = false;
  if (!limits.sharedSubscriptionAvailable) p.sharedSubscriptionAvailable = false;
  if (limits.serverKeepAlive !== undefined) p.serverKeepAlive = limits.serverKeepAlive;
  if (request.requestResponseInformation && params.responseInformation !== undefined) {
    p.responseInformation = params.responseInformation;
  }
  if (request.authentication !== undefined) {
    p.authenticationMethod = request.authentication.method;
    if (params.authenticationData !== undefined) p.authenticationData = params.authenticationData;
  }
  if (params.userProperties !== undefined && params.userProperties.length > 0) p.userProperties = params.userProperties;
  return { type: "connack", sessionPresent, reasonCode: ReasonCode.Success, properties: p };
}

/** The CONNACK refusing a connection; Session Present is 0 [MQTT-3.2.2-6]. */
export function refuseConnack(version: ProtocolVersion, reasonCode: number, reasonString: string | undefined): ConnackPacket {
  if (version === 4) {
    return { type: "connack", sessionPresent: false, reasonCode: connectReturnCode(reasonCode), properties: {} };
  }
  return { type: "connack", sessionPresent: false, reasonCode, properties: reasonString === undefined ? {} : { reasonString } };
}

/** Maps an MQTT 5 CONNACK reason code to the nearest MQTT 3.1.1 return code. */
export function connectReturnCode(reasonCode: number): ConnectReturnCode {
  switch (reasonCode) {
    case ReasonCode.Success:
      return ConnectReturnCode.Accepted;
    case ReasonCode.UnsupportedProtocolVersion:
      return ConnectReturnCode.UnacceptableProtocolVersion;
    case ReasonCode.ClientIdentifierNotValid:
      return ConnectReturnCode.IdentifierRejected;
    case ReasonCode.BadUserNameOrPassword:
      return ConnectReturnCode.BadUserNameOrPassword;
    case ReasonCode.NotAuthorized:
    case ReasonCode.Banned:
    case ReasonCode.BadAuthenticationMethod:
      return ConnectReturnCode.NotAuthorized;
    default:
      return ConnectReturnCode.ServerUnavailable;
  }
}
