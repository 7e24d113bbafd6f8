/**
 * What the router moves around: an application message as published, and one copy of it prepared
 * for one subscriber.
 * @module
 */
import type { QoS } from "../codec/packet.js";
import type { UserProperty } from "../codec/property-types.js";

/** The MQTT 5 properties that travel with an application message (aliases never do). */
export interface MessageProperties {
  /** 1: the payload is UTF-8 text; 0 or absent: unspecified bytes. */
  readonly payloadFormatIndicator?: 0 | 1;
  /** The payload's MIME type, as the publisher gave it. */
  readonly contentType?: string;
  /** Where a request's receiver should publish its response. */
  readonly responseTopic?: string;
  /** Lets the requester match a response to its request. */
  readonly correlationData?: Uint8Array;
  /** Forwarded unchanged, in order. */
  readonly userProperties?: readonly UserProperty[];
}

/** An application message as the router received it from a publisher (or a will). */
export interface Message {
  /** The resolved topic name (never an alias). */
  readonly topic: string;
  /** The body, shared by every subscriber's copy (never copied per delivery). */
  readonly payload: Uint8Array;
  /** The publisher's QoS; each copy gets min(this, granted QoS). */
  readonly qos: QoS;
  /** The publisher's RETAIN flag: store it as the topic's retained message. */
  readonly retain: boolean;
  /** Forwarded with every copy. */
  readonly properties: MessageProperties;
  /** When the message expires (clock ms), from its Message Expiry Interval; absent: never. */
  readonly expiresAt?: number;
  /** The publishing client, for no-local; absent for wills published by the server itself. */
  readonly origin?: string;
}

/** One subscriber's copy: the effective QoS and flags for that subscriber. */
export interface Delivery {
  /** The shared message; the copy adds only per-subscriber fields. */
  readonly message: Message;
  /** min(publish QoS, granted QoS) [MQTT-3.8.4-8]. */
  readonly qos: QoS;
  /** RETAIN as sent: set for retained-at-subscribe, or retain-as-published. */
  readonly retain: boolean;
  /** The Subscription Identifiers of the matching subscriptions [MQTT-3.3.4-3]. */
  readonly subscriptionIds: readonly number[];
}

// Strings are counted at two bytes a code unit (the most a JS string holds per unit), and every
// object, string and array a little overhead, so the bounds are upper estimates, never low.
const OBJECT_OVERHEAD = 64;
const ENTRY_OVERHEAD = 16;

/**
 * Bytes an application message holds: topic, payload and every property (content type, response
 * topic, correlation data, user properties), for the queue's and the retained store's byte bounds.
 */
export function messageSize(message: Message): number {
  const p = message.properties;
  let bytes = OBJECT_OVERHEAD + message.payload.byteLength + message.topic.length * 2 + (message.origin?.length ?? 0) * 2;
  if (p.contentType !== undefined) bytes += ENTRY_OVERHEAD + p.contentType.length * 2;
  if (p.responseTopic !== undefined) bytes += ENTRY_OVERHEAD + p.responseTopic.length * 2;
  if (p.correlationData !== undefined) bytes += ENTRY_OVERHEAD + p.correlationData.byteLength;
  if (p.userProperties !== undefined) {
    for (const [name, value] of p.userProperties) bytes += ENTRY_OVERHEAD + (name.length + value.length) * 2;
  }
  return bytes;
}

/** Bytes a delivery holds (its message, and its subscription identifiers), for the queue's byte bound. */
export function deliverySize(delivery: Delivery): number {
  return messageSize(delivery.message) + ENTRY_OVERHEAD + delivery.subscriptionIds.length * 8;
}

/** The Message Expiry Interval left at `now`, in whole seconds rounded up; undefined: never expires. */
export function remainingExpiry(message: Message, now: number): number | undefined {
  if (message.expiresAt === undefined) return undefined;
  return Math.max(0, Math.ceil((message.expiresAt - now) / 1000));
}

/** True when the message's expiry has passed at `now`. */
export function isExpired(message: Message, now: number): boolean {
  return message.expiresAt !== undefined && message.expiresAt <= now;
}
