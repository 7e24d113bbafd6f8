/**
 * Read-only views of router state for operators (an admin API, a dashboard): plain frozen values
 * copied out of a session, so nothing handed out can change the router, and nothing the router
 * does later changes a view already taken.
 * @module
 */
import type { ProtocolVersion, QoS } from "../codec/packet.js";
import type { Message } from "./message.js";
import { SESSION_NEVER_EXPIRES } from "../codec/packet.js";
import type { Session } from "./mqtt-session.js";
import type { SessionSubscription } from "./subscription.js";

/** One subscription as an operator sees it. */
export interface SubscriptionView {
  /** The filter exactly as subscribed (a shared one with its `$share/<group>/` prefix). */
  readonly filter: string;
  /** The granted (maximum) QoS. */
  readonly qos: QoS;
  /** The subscriber does not get its own publishes. */
  readonly noLocal: boolean;
  /** Forwarded messages keep their RETAIN flag. */
  readonly retainAsPublished: boolean;
  /** 0 retained messages on every subscribe, 1 only on a new subscription, 2 never. */
  readonly retainHandling: 0 | 1 | 2;
  /** The Subscription Identifier given with the SUBSCRIBE, if any. */
  readonly subscriptionId?: number;
  /** For a shared subscription: its ShareName and the filter it shares. */
  readonly share?: { readonly group: string; readonly filter: string };
}

/** One session as an operator sees it, taken at one instant. */
export interface SessionView {
  /** The session's key. */
  readonly clientId: string;
  /** A connection owns the session now. */
  readonly connected: boolean;
  /** The owner's protocol version, while connected. */
  readonly protocolVersion?: ProtocolVersion;
  /** Session Expiry Interval in force, seconds; 0xFFFFFFFF: never. */
  readonly expiryInterval: number;
  /** When the last owner went away (clock ms); absent while connected. */
  readonly disconnectedAt?: number;
  /** When the session ends unless a client resumes it (clock ms); absent while connected or if it never expires. */
  readonly expiresAt?: number;
  /** Deliveries waiting on the queue (resends included). */
  readonly queued: number;
  /** Deliveries sent and not yet acknowledged. */
  readonly inflight: number;
  /** Approximate bytes held by queued and in-flight deliveries. */
  readonly queuedBytes: number;
  /** How many filters the session holds. */
  readonly subscriptions: number;
  /** A will is armed (waiting for the connection to close, or for its delay). */
  readonly willArmed: boolean;
}

/** One retained message as an operator sees it. */
export interface RetainedView {
  /** The topic the message is retained under. */
  readonly topic: string;
  /** The QoS it was published with (its copies get at most this). */
  readonly qos: QoS;
  /** The payload (a copy: changing it changes nothing in the store). */
  readonly payload: Uint8Array;
  /** When it expires (clock ms); absent: never. */
  readonly expiresAt?: number;
  /** The payload's MIME type, as published. */
  readonly contentType?: string;
  /** 1: the payload is UTF-8 text. */
  readonly payloadFormatIndicator?: 0 | 1;
}

/** A page of retained messages, in topic order. */
export interface RetainedPage {
  /** At most the page's `limit`, in topic order. */
  readonly messages: readonly RetainedView[];
  /** Pass as `after` for the next page; absent when this page was the last. */
  readonly next?: string;
}

/** Copies a session's operator-visible state. */
export function viewSession(session: Session): SessionView {
  const { queue } = session;
  const disconnectedAt = session.disconnectedAt;
  const expires = disconnectedAt !== undefined && session.expiryInterval !== SESSION_NEVER_EXPIRES;
  return Object.freeze({
    clientId: session.clientId,
    connected: session.connected,
    ...(session.owner === undefined ? {} : { protocolVersion: session.owner.protocolVersion }),
    expiryInterval: session.expiryInterval,
    ...(disconnectedAt === undefined ? {} : { disconnectedAt }),
    ...(expires ? { expiresAt: disconnectedAt + session.expiryInterval * 1000 } : {}),
    queued: queue.queuedCount,
    inflight: queue.inflightCount,
    queuedBytes: queue.bytes,
    subscriptions: session.subscriptions.size,
    willArmed: session.will !== undefined,
  });
}

/** Copies one subscription. */
export function viewSubscription(subscription: SessionSubscription): SubscriptionView {
  const { filter, qos, noLocal, retainAsPublished, retainHandling, subscriptionId, share } = subscription;
  return Object.freeze({
    filter,
    qos,
    noLocal,
    retainAsPublished,
    retainHandling,
    ...(subscriptionId === undefined ? {} : { subscriptionId }),
    ...(share === undefined ? {} : { share: Object.freeze({ group: share.group, filter: share.filter }) }),
  });
}

/** Copies one retained message. */
export function viewRetained(message: Message): RetainedView {
  const { contentType, payloadFormatIndicator } = message.properties;
  return Object.freeze({
    topic: message.topic,
    qos: message.qos,
    payload: message.payload.slice(),
    ...(message.expiresAt === undefined ? {} : { expiresAt: message.expiresAt }),
    ...(contentType === undefined ? {} : { contentType }),
    ...(payloadFormatIndicator === undefined ? {} : { payloadFormatIndicator }),
  });
}
