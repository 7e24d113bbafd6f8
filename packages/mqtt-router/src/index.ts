/**
 * @handoff/mqtt-router: a sans-I/O MQTT 3.1.1 + 5.0 broker core — the router (sessions,
 * subscriptions, retained messages, exact delivery across takeover) and the client session that
 * joins one connection's protocol to it. A broker supplies sockets, authentication, storage and
 * timers. The wire codec is `@handoff/mqtt-router/codec`; this entry re-exports only the codec
 * types the router's and the session's signatures use.
 * @module
 */
// The client session: what a broker creates per connection.
export { ClientSession, imposedKeepAlive, type Admission, type ClientSessionHost, type ClientSessionOptions, type CommitFailure, type Commits, type Hold, type SubscribeFilters } from "./client-session/index.js";
// What a host shares among its connections to answer a session: flow control holds and the
// encodings shared by a message's copies.
export { FlowControl, PublishTemplates } from "./client-session/index.js";
// The router: one per broker.
export {
  ClusterShares,
  Router,
  RouterStats,
  SnapshotStore,
  memoryOnlyStore,
  shareKey,
  type ArmedWill,
  type Assigned,
  type ConnectOutcome,
  type ConnectRequest,
  type Delivery,
  type DeliveryPlan,
  type DeliverySink,
  type DisconnectOptions,
  type DropReason,
  type ExecuteOutcome,
  type Message,
  type MessageProperties,
  type OutboundPublish,
  type OverflowPolicy,
  type Owner,
  type PageOptions,
  type PlanTarget,
  type PressureMarks,
  type ReadonlySession,
  type ReadonlySessionQueue,
  type RetainedLimits,
  type RetainedPage,
  type RetainedView,
  type RouterEvent,
  type RouterLimit,
  type RouterOptions,
  type RouterSnapshot,
  type RouterStore,
  type SessionRecord,
  type SessionSnapshot,
  type SessionSubscription,
  type SessionView,
  type ShareDecisions,
  type Stale,
  type StoredDelivery,
  type SubscribeGrant,
  type SubscribeRequest,
  type SubscriptionOptions,
  type SubscriptionView,
  type WillRequest,
} from "./router/index.js";
// The per-connection protocol's options and the effects a session hands its host.
export { type CloseCause, type ClosedEffect, type ConnectionPhase, type ConnectRequestEffect, type DeliverResult, type ProtocolOptions, type ServerLimits } from "./protocol/index.js";
// Codec types (and the reason code values) that appear in the signatures above.
export { ConnectReturnCode, ReasonCode, type ProtocolVersion, type PublishTemplate, type QoS, type Properties, type UserProperty, type Will, type WillProperties } from "./codec/index.js";
