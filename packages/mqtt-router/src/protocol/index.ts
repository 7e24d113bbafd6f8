// Public entry of the per-connection MQTT protocol state machine.
export { MqttConnection, type ConnectionPhase } from "./connection.js";
export { connectReturnCode, type AcceptParams } from "./connect.js";
export type {
  Action,
  AuthEffect,
  CloseCause,
  ClosedEffect,
  ConnectRequestEffect,
  DeliveryEffect,
  Effect,
  InboundQos2ReceivedEffect,
  InboundQos2ReleasedEffect,
  PublishEffect,
  SubscribeEffect,
  UnsubscribeEffect,
} from "./effects.js";
export { DEFAULT_MAX_FILTERS_PER_SUBSCRIBE, DEFAULT_MAX_PENDING_BYTES, DEFAULT_MAX_TOPIC_LEVELS, type ProtocolOptions, type ServerLimits } from "./options.js";
export type { DeliverResult, OutboundMessage } from "./outbound-flow.js";
