// Public entry of the MQTT 3.1.1 / 5.0 wire codec (`@handoff/mqtt-router/codec`).
export { decodePacket, type DecodeOptions, type DecodeResult } from "./decode.js";
export { PacketDecoder, type PacketDecoderOptions } from "./decoder.js";
export { encodePacket, type EncodeOptions, type EncodeResult } from "./encode.js";
export { MqttCodecError, MqttDecodeError, MqttEncodeError, type CodecErrorCode } from "./errors.js";
export { MAX_PACKET_SIZE } from "./frame.js";
export {
  PacketType,
  SESSION_NEVER_EXPIRES,
  type AuthPacket,
  type ConnackPacket,
  type ConnectPacket,
  type ConnectProtocolVersion,
  type DisconnectPacket,
  type Packet,
  type PacketKind,
  type PingreqPacket,
  type PingrespPacket,
  type ProtocolVersion,
  type PubAckPacket,
  type PublishPacket,
  type PublishQoS0Packet,
  type PublishQoS12Packet,
  type QoS,
  type SubackPacket,
  type SubscribePacket,
  type Subscription,
  type UnsubackPacket,
  type UnsubscribePacket,
  type Will,
} from "./packet.js";
export { PropertyContext, propertyInfo } from "./properties.js";
export type {
  AckProperties,
  AuthProperties,
  ConnackProperties,
  ConnectProperties,
  DisconnectProperties,
  Properties,
  PublishProperties,
  SubscribeProperties,
  UnsubscribeProperties,
  UserProperty,
  WillProperties,
} from "./property-types.js";
export { PublishTemplate, preparePublish, type PrepareResult } from "./publish-template.js";
export {
  ConnectReturnCode,
  ReasonCode,
  isValidReasonCode,
  validReasonCodes,
  validSubackReturnCodesV4,
  type ReasonCodePacket,
} from "./reason-codes.js";
export {
  isValidPlainTopicFilter,
  isValidTopicFilter,
  isValidTopicName,
  topicLevels,
  parseSharedFilter,
  type SharedFilter,
} from "./topic.js";
export { MAX_VARINT } from "./varint.js";
