/**
 * SUBSCRIBE and UNSUBSCRIBE for a session's owner: subscriptions are added, replaced
 * [MQTT-3.8.4-3] or removed, kept indexed for planning, reported to the store, and a new
 * subscription is handed the retained messages its retain handling asks for [MQTT-3.3.1-9..11].
 * @module
 */
import type { QoS } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { parseSharedFilter } from "../codec/topic.js";
import { enqueue, pump } from "./delivery.js";
import { deliveryContext, ownedSession, STALE, type RouterState, type Stale } from "./router-state.js";
import type { SessionSubscription, SubscriptionOptions } from "./subscription.js";

/** One filter of a SUBSCRIBE. */
export interface SubscribeRequest extends Omit<SubscriptionOptions, "subscriptionId"> {
  /** The topic filter, a shared one with its `$share/<group>/` prefix. */
  readonly filter: string;
}

/** What {@link Router.subscribe} answers per filter: the granted QoS, or 0x97 Quota exceeded. */
export type SubscribeGrant = QoS | typeof ReasonCode.QuotaExceeded;

/** Adds or replaces the owner's subscriptions and queues the retained messages they bring. */
export function subscribe(
  state: RouterState,
  clientId: string,
  generation: number,
  requests: readonly SubscribeRequest[],
  subscriptionId?: number,
): { readonly ok: true; readonly granted: readonly SubscribeGrant[] } | Stale {
  const session = ownedSession(state, clientId, generation);
  if (session === undefined) return STALE;
  const v5 = session.owner?.protocolVersion === 5;
  const ctx = deliveryContext(state);
  const granted: SubscribeGrant[] = [];
  for (const request of requests) {
    const existed = session.subscriptions.has(request.filter);
    if (!existed && session.subscriptions.size >= state.settings.maxSubscriptionsPerSession) {
      state.stats.limitsExceeded["subscriptions-per-session"] += 1;
      granted.push(ReasonCode.QuotaExceeded);
      continue;
    }
    const share = v5 ? parseSharedFilter(request.filter) : undefined;
    const subscription: SessionSubscription = {
      filter: request.filter,
      qos: request.qos,
      noLocal: request.noLocal,
      retainAsPublished: request.retainAsPublished,
      retainHandling: request.retainHandling,
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
      ...(share ? { share } : {}),
    };
    session.subscriptions.set(request.filter, subscription);
    state.index.add(session, subscription);
    state.store.subscriptionSaved(clientId, subscription);
    granted.push(request.qos);
    // Shared subscriptions never get retained messages on subscribe (spec 4.8.2).
    const sendRetained = !share && (request.retainHandling === 0 || (request.retainHandling === 1 && !existed));
    if (!sendRetained) continue;
    const matches = state.retained.match(request.filter, ctx.now, (topic) => {
      state.store.retainedChanged(topic, undefined);
    });
    for (const message of matches) {
      if (session.readable?.(message.topic) === false) continue;
      enqueue(
        session,
        session.queue.epoch,
        {
          message,
          qos: message.qos < request.qos ? message.qos : request.qos,
          retain: true,
          subscriptionIds: subscriptionId === undefined ? [] : [subscriptionId],
        },
        ctx,
      );
    }
  }
  pump(session, ctx);
  return { ok: true, granted };
}

/** Removes the owner's subscriptions; per filter whether one existed (UNSUBACK 0x00 / 0x11). */
export function unsubscribe(
  state: RouterState,
  clientId: string,
  generation: number,
  filters: readonly string[],
): { readonly ok: true; readonly existed: readonly boolean[] } | Stale {
  const session = ownedSession(state, clientId, generation);
  if (session === undefined) return STALE;
  const existed = filters.map((filter) => {
    const subscription = session.subscriptions.get(filter);
    if (subscription === undefined) return false;
    session.subscriptions.delete(filter);
    state.index.remove(session, subscription);
    state.store.subscriptionDeleted(clientId, filter);
    return true;
  });
  return { ok: true, existed };
}
