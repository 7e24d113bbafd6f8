/**
 * The MQTT router: sessions, subscriptions, retained messages and exact delivery across takeover.
 * @module
 */
export { ClusterShares, shareKey, type ShareDecisions } from "./cluster-shares.js";
export { Deadlines, type Deadline } from "./deadlines.js";
export type { DeliveryContext, EnqueueOutcome, OverflowPolicy } from "./delivery.js";
export { isExpired, messageSize, remainingExpiry, type Delivery, type Message, type MessageProperties } from "./message.js";
export { PacketIds } from "./packet-ids.js";
export type { DeliveryPlan, PlanTarget } from "./plan.js";
export { DEFAULT_MARKS, type PressureMarks } from "./pressure.js";
export type { ExecuteOutcome } from "./publish.js";
export { RetainedStore, type RetainedLimits, type RetainedRefusal } from "./retained-store.js";
export { Router } from "./router.js";
export type { RouterOptions } from "./router-options.js";
export type { Stale } from "./router-state.js";
export type { PageOptions } from "./router-views.js";
export type { DisconnectOptions, RouterEvent } from "./session-lifetime.js";
export type { RetainedPage, RetainedView, SessionView, SubscriptionView } from "./session-view.js";
export type { ArmedWill, Assigned, Owner, ReadonlySession, ReadonlySessionQueue } from "./mqtt-session.js";
export type { DeliverySink, OutboundPublish } from "./sink.js";
export { SnapshotStore } from "./snapshot-store.js";
export { RouterStats, type DropReason, type RouterLimit } from "./stats.js";
export {
  memoryOnlyStore,
  type RouterSnapshot,
  type RouterStore,
  type SessionRecord,
  type SessionSnapshot,
  type StoredDelivery,
} from "./store.js";
export type { SubscribeGrant, SubscribeRequest } from "./subscriptions.js";
export type { SessionSubscription, SubscriptionOptions } from "./subscription.js";
export type { ConnectOutcome, ConnectRequest } from "./takeover.js";
export { TopicTrie } from "./topic-trie.js";
export type { WillRequest } from "./wills.js";
