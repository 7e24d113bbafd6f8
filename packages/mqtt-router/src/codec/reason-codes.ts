/**
 * MQTT 5 reason codes (spec §2.4), by name. Several codes share a value (0x00 is Success,
 * Normal disconnection and Granted QoS 0), so each meaning gets its own name.
 */
export const ReasonCode = {
  Success: 0x00,
  NormalDisconnection: 0x00,
  GrantedQoS0: 0x00,
  GrantedQoS1: 0x01,
  GrantedQoS2: 0x02,
  DisconnectWithWillMessage: 0x04,
  NoMatchingSubscribers: 0x10,
  NoSubscriptionExisted: 0x11,
  ContinueAuthentication: 0x18,
  ReAuthenticate: 0x19,
  UnspecifiedError: 0x80,
  MalformedPacket: 0x81,
  ProtocolError: 0x82,
  ImplementationSpecificError: 0x83,
  UnsupportedProtocolVersion: 0x84,
  ClientIdentifierNotValid: 0x85,
  BadUserNameOrPassword: 0x86,
  NotAuthorized: 0x87,
  ServerUnavailable: 0x88,
  ServerBusy: 0x89,
  Banned: 0x8a,
  ServerShuttingDown: 0x8b,
  BadAuthenticationMethod: 0x8c,
  KeepAliveTimeout: 0x8d,
  SessionTakenOver: 0x8e,
  TopicFilterInvalid: 0x8f,
  TopicNameInvalid: 0x90,
  PacketIdentifierInUse: 0x91,
  PacketIdentifierNotFound: 0x92,
  ReceiveMaximumExceeded: 0x93,
  TopicAliasInvalid: 0x94,
  PacketTooLarge: 0x95,
  MessageRateTooHigh: 0x96,
  QuotaExceeded: 0x97,
  AdministrativeAction: 0x98,
  PayloadFormatInvalid: 0x99,
  RetainNotSupported: 0x9a,
  QoSNotSupported: 0x9b,
  UseAnotherServer: 0x9c,
  ServerMoved: 0x9d,
  SharedSubscriptionsNotSupported: 0x9e,
  ConnectionRateExceeded: 0x9f,
  MaximumConnectTime: 0xa0,
  SubscriptionIdentifiersNotSupported: 0xa1,
  WildcardSubscriptionsNotSupported: 0xa2,
} as const;

/** Any MQTT 5 reason code value. */
export type ReasonCode = (typeof ReasonCode)[keyof typeof ReasonCode];

/** MQTT 3.1.1 CONNACK return codes (spec 3.1.1 §3.2.2.3). */
export const ConnectReturnCode = {
  Accepted: 0x00,
  UnacceptableProtocolVersion: 0x01,
  IdentifierRejected: 0x02,
  ServerUnavailable: 0x03,
  BadUserNameOrPassword: 0x04,
  NotAuthorized: 0x05,
} as const;

/** Any MQTT 3.1.1 CONNACK return code value. */
export type ConnectReturnCode = (typeof ConnectReturnCode)[keyof typeof ConnectReturnCode];

const R = ReasonCode;

/** Packets whose MQTT 5 form carries reason codes. */
export type ReasonCodePacket =
  | "connack"
  | "puback"
  | "pubrec"
  | "pubrel"
  | "pubcomp"
  | "suback"
  | "unsuback"
  | "disconnect"
  | "auth";

/** The reason codes the MQTT 5 spec allows in each packet type (spec §2.4 table 2-6). */
export const validReasonCodes: Readonly<Record<ReasonCodePacket, ReadonlySet<number>>> = {
  connack: new Set([
    R.Success, R.UnspecifiedError, R.MalformedPacket, R.ProtocolError, R.ImplementationSpecificError,
    R.UnsupportedProtocolVersion, R.ClientIdentifierNotValid, R.BadUserNameOrPassword, R.NotAuthorized,
    R.ServerUnavailable, R.ServerBusy, R.Banned, R.BadAuthenticationMethod, R.TopicNameInvalid,
    R.PacketTooLarge, R.QuotaExceeded, R.PayloadFormatInvalid, R.RetainNotSupported, R.QoSNotSupported,
    R.UseAnotherServer, R.ServerMoved, R.ConnectionRateExceeded,
  ]),
  puback: new Set([
    R.Success, R.NoMatchingSubscribers, R.UnspecifiedError, R.ImplementationSpecificError, R.NotAuthorized,
    R.TopicNameInvalid, R.PacketIdentifierInUse, R.QuotaExceeded, R.PayloadFormatInvalid,
  ]),
  pubrec: new Set([
    R.Success, R.NoMatchingSubscribers, R.UnspecifiedError, R.ImplementationSpecificError, R.NotAuthorized,
    R.TopicNameInvalid, R.PacketIdentifierInUse, R.QuotaExceeded, R.PayloadFormatInvalid,
  ]),
  pubrel: new Set([R.Success, R.PacketIdentifierNotFound]),
  pubcomp: new Set([R.Success, R.PacketIdentifierNotFound]),
  suback: new Set([
    R.GrantedQoS0, R.GrantedQoS1, R.GrantedQoS2, R.UnspecifiedError, R.ImplementationSpecificError,
    R.NotAuthorized, R.TopicFilterInvalid, R.PacketIdentifierInUse, R.QuotaExceeded,
    R.SharedSubscriptionsNotSupported, R.SubscriptionIdentifiersNotSupported, R.WildcardSubscriptionsNotSupported,
  ]),
  unsuback: new Set([
    R.Success, R.NoSubscriptionExisted, R.UnspecifiedError, R.ImplementationSpecificError, R.NotAuthorized,
    R.TopicFilterInvalid, R.PacketIdentifierInUse,
  ]),
  disconnect: new Set([
    R.NormalDisconnection, R.DisconnectWithWillMessage, R.UnspecifiedError, R.MalformedPacket, R.ProtocolError,
    R.ImplementationSpecificError, R.NotAuthorized, R.ServerBusy, R.ServerShuttingDown, R.KeepAliveTimeout,
    R.SessionTakenOver, R.TopicFilterInvalid, R.TopicNameInvalid, R.ReceiveMaximumExceeded, R.TopicAliasInvalid,
    R.PacketTooLarge, R.MessageRateTooHigh, R.QuotaExceeded, R.AdministrativeAction, R.PayloadFormatInvalid,
    R.RetainNotSupported, R.QoSNotSupported, R.UseAnotherServer, R.ServerMoved, R.SharedSubscriptionsNotSupported,
    R.ConnectionRateExceeded, R.MaximumConnectTime, R.SubscriptionIdentifiersNotSupported,
    R.WildcardSubscriptionsNotSupported,
  ]),
  auth: new Set([R.Success, R.ContinueAuthentication, R.ReAuthenticate]),
};

/** MQTT 3.1.1 SUBACK return codes: granted QoS 0..2 or failure 0x80. */
export const validSubackReturnCodesV4: ReadonlySet<number> = new Set([0x00, 0x01, 0x02, 0x80]);

/** True when `code` is allowed in `packet` by the MQTT 5 spec. */
export function isValidReasonCode(packet: ReasonCodePacket, code: number): boolean {
  return validReasonCodes[packet].has(code);
}
