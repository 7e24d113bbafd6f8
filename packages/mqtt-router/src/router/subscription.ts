/**
 * Subscriptions as the router keeps them.
 * @module
 */
import type { QoS } from "../codec/packet.js";

/** The options of one subscription [MQTT-3.8.3]. */
export interface SubscriptionOptions {
  /** The granted (maximum) QoS. */
  readonly qos: QoS;
  /** Do not deliver the client's own publishes [MQTT-3.8.3-3]. */
  readonly noLocal: boolean;
  /** Keep the publisher's RETAIN flag on forwarded messages [MQTT-3.3.1-12/13]. */
  readonly retainAsPublished: boolean;
  /** 0: send retained on subscribe; 1: only if the subscription is new; 2: never. */
  readonly retainHandling: 0 | 1 | 2;
  /** The Subscription Identifier given with the SUBSCRIBE, if any. */
  readonly subscriptionId?: number;
}

/** One subscription of one session. */
export interface SessionSubscription extends SubscriptionOptions {
  /** The filter exactly as subscribed (including any `$share/<group>/` prefix). */
  readonly filter: string;
  /** Set for a shared subscription: the group and the filter it shares. */
  readonly share?: { readonly group: string; readonly filter: string };
}
