/**
 * The router's store interface: every change to durable state is reported here, synchronously and
 * in order, as it happens in memory. A durable implementation records the changes and commits them
 * in groups; the app sends an acknowledgement (CONNACK, SUBACK, PUBACK/PUBREC) only after the
 * commit that covers the change it promises. The router itself never waits: it stays sans-I/O.
 * @module
 */
import type { Assigned } from "./mqtt-session.js";
import type { Delivery, Message } from "./message.js";
import type { SessionSubscription } from "./subscription.js";

/** A session's durable fields. */
export interface SessionRecord {
  /** The session's key. */
  readonly clientId: string;
  /** Session Expiry Interval in seconds; 0xFFFFFFFF: never. */
  readonly expiryInterval: number;
  /** The generation of the connection that claimed it last. */
  readonly generation: number;
  /** Clock ms of the last disconnect; undefined while connected. */
  readonly disconnectedAt: number | undefined;
}

/** Receives every durable change, in order. */
export interface RouterStore {
  /** A session was created, claimed by a new connection, released or had its expiry changed. */
  sessionSaved(record: SessionRecord): void;
  /** A session ended (clean start replaced it, or it expired): drop everything stored for it. */
  sessionDeleted(clientId: string): void;
  /** A subscription was added or replaced. */
  subscriptionSaved(clientId: string, subscription: SessionSubscription): void;
  /** A subscription was removed. */
  subscriptionDeleted(clientId: string, filter: string): void;
  /** A delivery was queued for a session under sequence number `seq`. */
  deliveryQueued(clientId: string, seq: number, delivery: Delivery): void;
  /** A delivery left the session for good (acknowledged, expired, evicted or sent at QoS 0). */
  deliveryRemoved(clientId: string, seq: number): void;
  /** A QoS 1/2 delivery got its packet id, or moved to the PUBREL phase. */
  deliveryAssigned(clientId: string, seq: number, assigned: Assigned): void;
  /** An inbound QoS 2 packet id was received (added) or released by PUBREL (removed). */
  inboundQos2Changed(clientId: string, packetId: number, received: boolean): void;
  /** A retained message was set; `undefined` deletes the topic's retained message. */
  retainedChanged(topic: string, message: Message | undefined): void;
  /** A will was armed (message) or disarmed (undefined) for a session. */
  willChanged(clientId: string, will: { readonly message: Message; readonly delayMs: number } | undefined): void;
}

/** A store that keeps nothing: the in-memory default. */
export const memoryOnlyStore: RouterStore = {
  sessionSaved: () => undefined,
  sessionDeleted: () => undefined,
  subscriptionSaved: () => undefined,
  subscriptionDeleted: () => undefined,
  deliveryQueued: () => undefined,
  deliveryRemoved: () => undefined,
  deliveryAssigned: () => undefined,
  inboundQos2Changed: () => undefined,
  retainedChanged: () => undefined,
  willChanged: () => undefined,
};

/** A queued delivery as stored: its sequence number, and its packet id once it was sent. */
export interface StoredDelivery {
  /** The delivery's place in the session's queue; restore keeps the order. */
  readonly seq: number;
  /** What to deliver. */
  readonly delivery: Delivery;
  /** Present once sent: a restore resends it with the same packet id and DUP set. */
  readonly assigned?: Assigned;
}

/** Everything stored for one session, as a durable store loads it back at startup. */
export interface SessionSnapshot {
  /** The session's durable fields. */
  readonly record: SessionRecord;
  /** Every subscription the session holds. */
  readonly subscriptions: readonly SessionSubscription[];
  /** In increasing `seq` order. */
  readonly deliveries: readonly StoredDelivery[];
  /** QoS 2 packet ids received and awaiting PUBREL, so a duplicate is not delivered twice. */
  readonly inboundQos2: readonly number[];
  /** The armed will, if any; `delayMs` is its Will Delay Interval. */
  readonly will?: { readonly message: Message; readonly delayMs: number };
}

/** What a durable store hands back to {@link Router.restore} after a restart. */
export interface RouterSnapshot {
  /** Every stored session. */
  readonly sessions: readonly SessionSnapshot[];
  /** Every retained message; restore sets each as its topic's. */
  readonly retained: readonly Message[];
}
