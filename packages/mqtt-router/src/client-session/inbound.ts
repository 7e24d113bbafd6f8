/**
 * What the client asks of an accepted session, taken to the router: PUBLISH (acknowledged only
 * after its commit), SUBSCRIBE (the SUBACK before the retained messages it brings), UNSUBSCRIBE,
 * the inbound QoS 2 phases and the client's acknowledgements of deliveries.
 * @module
 */
import { ReasonCode } from "../codec/reason-codes.js";
import type { DeliveryEffect, InboundQos2ReceivedEffect, InboundQos2ReleasedEffect, PublishEffect, SubscribeEffect, UnsubscribeEffect } from "../protocol/effects.js";
import type { SubscribeGrant, SubscribeRequest } from "../router/subscriptions.js";
import { settled, type Decision } from "./decisions.js";
import { messageProperties, own } from "./received-message.js";
import type { SessionState } from "./session-state.js";

/**
 * Whether the session may no longer plan anything for what this connection sent: it was told to
 * leave while a decision was pending, or another connection owns the session now (read after
 * every wait for a decision: the fence).
 */
export function fenced(s: SessionState): boolean {
  const id = s.clientId;
  return s.abandoned || id === undefined || s.router.owner(id) !== s.sink;
}

/**
 * The host's authorization of a PUBLISH from the client (asked early if one ahead of it was
 * pending); undefined when nothing is planned for it (no session, or abandoned).
 */
export function publishDecision(s: SessionState, effect: PublishEffect): Decision | undefined {
  if (s.clientId === undefined || s.abandoned) return undefined;
  s.host.received(effect.qos);
  return s.decisions.take(effect, s.host);
}

/**
 * Routes a PUBLISH from the client as its authorization decided; its PUBACK/PUBREC follows the
 * commit (0x87 when refused). Returns the subscribers it left congested (flow control then holds
 * this publisher), or undefined.
 */
export function publishFromClient(s: SessionState, effect: PublishEffect, allowed: boolean): readonly string[] | undefined {
  const clientId = s.clientId;
  if (clientId === undefined) return undefined;
  const packetId = effect.packetId;
  // A new QoS 2 id is the session's from here (the protocol's inbound-qos2-received follows).
  if (effect.qos === 2 && packetId !== undefined && s.generation !== undefined) s.router.inboundQos2(clientId, s.generation, packetId, true);
  if (!allowed) {
    if (packetId !== undefined) {
      s.acks.afterCommit(() => {
        s.conn.acknowledgePublish(packetId, ReasonCode.NotAuthorized);
      });
    }
    return undefined;
  }
  if (packetId !== undefined && s.options.commits?.admitting === false) {
    s.acks.refuseForStorage(packetId, effect.qos === 2);
    return undefined;
  }
  const expiry = effect.properties.messageExpiryInterval;
  const message = {
    topic: effect.topic,
    payload: own(effect.payload),
    qos: effect.qos,
    retain: effect.retain,
    properties: messageProperties(effect.properties),
    origin: clientId,
  };
  // No spread on the common path (no expiry): this runs once per PUBLISH.
  const outcome = s.router.publish(expiry === undefined ? message : { ...message, expiresAt: s.options.clock.now() + expiry * 1000 });
  // Past the retained limits the message is delivered but not stored (counted by the router).
  if (outcome.retainRefused) s.host.retainNotStored(effect.topic);
  if (packetId !== undefined) {
    // PUBACK/PUBREC only once the message is stored for every session owed it.
    s.acks.afterCommit(() => {
      s.conn.acknowledgePublish(
        packetId,
        outcome.noMatchingSubscribers ? ReasonCode.NoMatchingSubscribers : ReasonCode.Success,
        outcome.retainRefused ? "delivered but not retained: retained message limit reached" : undefined,
      );
    });
  }
  return outcome.congested.length === 0 ? undefined : outcome.congested;
}

/**
 * The host's authorization of each filter of a SUBSCRIBE, all at once or once every pending one
 * settled; undefined when nothing is planned for it.
 */
export function subscribeDecisions(s: SessionState, effect: SubscribeEffect): readonly boolean[] | Promise<readonly boolean[]> | undefined {
  if (s.clientId === undefined || s.generation === undefined || s.abandoned) return undefined;
  const now: boolean[] = [];
  const decisions = effect.subscriptions.map((sub) => {
    const decision = s.host.maySubscribe(sub.topicFilter);
    if (typeof decision === "boolean") now.push(decision);
    return decision;
  });
  if (now.length === decisions.length) return now;
  return Promise.all(decisions.map((d) => (typeof d === "boolean" ? Promise.resolve(d) : settled(d))));
}

/**
 * Subscribes what the ACL allows; the SUBACK follows the commit, and the retained messages of
 * the new subscriptions follow the SUBACK. A promise while the filters take several turns.
 */
export function subscribeFromClient(s: SessionState, effect: SubscribeEffect, allowedFilters: readonly boolean[]): Promise<void> | undefined {
  const clientId = s.clientId;
  const generation = s.generation;
  if (clientId === undefined || generation === undefined) return undefined;
  // 3.1.1 has no reason codes: the protocol layer sends any failure as 0x80.
  const codes: number[] = [];
  const allowed: number[] = [];
  const requests: SubscribeRequest[] = [];
  for (const [i, sub] of effect.subscriptions.entries()) {
    if (allowedFilters[i] !== true) {
      codes.push(ReasonCode.NotAuthorized);
      continue;
    }
    codes.push(sub.qos);
    allowed.push(i);
    requests.push({
      filter: sub.topicFilter,
      qos: sub.qos,
      noLocal: sub.noLocal,
      retainAsPublished: sub.retainAsPublished,
      retainHandling: sub.retainHandling,
    });
  }
  // Retained messages for the new subscriptions follow the SUBACK rather than precede it, and
  // whatever else arrives before the SUBACK queues behind them: deliveries wait until then.
  s.router.unbind(clientId, generation);
  const answer = (granted: readonly SubscribeGrant[] | undefined): void => {
    if (granted === undefined) return; // displaced meanwhile
    granted.forEach((code, k) => {
      const index = allowed[k];
      if (index !== undefined) codes[index] = code;
      if (code === ReasonCode.QuotaExceeded) s.host.subscriptionRefused(effect.subscriptions[index ?? -1]?.topicFilter);
    });
    s.acks.afterCommit(() => {
      s.conn.subscribed(effect.packetId, codes);
      s.router.bind(clientId, generation);
    });
  };
  // Many filters over a large retained store may take several turns; what follows waits for them.
  const subscribe = s.options.subscribe;
  const granted =
    subscribe === undefined
      ? subscribeAtOnce(s, clientId, generation, requests, effect.subscriptionIdentifier)
      : subscribe(s.router, clientId, generation, requests, effect.subscriptionIdentifier);
  if (granted instanceof Promise) return granted.then(answer);
  answer(granted);
  return undefined;
}

function subscribeAtOnce(
  s: SessionState,
  clientId: string,
  generation: number,
  requests: readonly SubscribeRequest[],
  subscriptionId: number | undefined,
): readonly SubscribeGrant[] | undefined {
  const result = s.router.subscribe(clientId, generation, requests, subscriptionId);
  return result.ok ? result.granted : undefined;
}

/** Unsubscribes; the UNSUBACK follows the commit. */
export function unsubscribeFromClient(s: SessionState, effect: UnsubscribeEffect): void {
  if (s.clientId === undefined || s.generation === undefined) return;
  const result = s.router.unsubscribe(s.clientId, s.generation, effect.topicFilters);
  if (!result.ok) return;
  s.acks.afterCommit(() => {
    s.conn.unsubscribed(
      effect.packetId,
      result.existed.map((existed) => (existed ? ReasonCode.Success : ReasonCode.NoSubscriptionExisted)),
    );
  });
}

/**
 * An inbound QoS 2 message entered or left the "received" phase. The PUBCOMP that follows a
 * release is queued behind this effect: the returned wait holds it for the commit.
 */
export function inboundQos2(s: SessionState, effect: InboundQos2ReceivedEffect | InboundQos2ReleasedEffect): Promise<void> | undefined {
  // A received id was recorded with its PUBLISH's decision (publishFromClient), in the same turn:
  // no wait for an authorization may come between the routing and the record. An abandoned
  // PUBLISH is not recorded, so its resend on the next connection is not taken for a duplicate.
  if (effect.kind === "inbound-qos2-received") return undefined;
  if (s.clientId !== undefined && s.generation !== undefined) s.router.inboundQos2(s.clientId, s.generation, effect.packetId, false);
  return s.acks.released(effect.packetId);
}

/**
 * The client acknowledged a delivery. After a PUBREC the returned wait holds the PUBREL behind
 * it until the PUBREL phase is stored: once the client has it, it may complete and forget the
 * message, and a restart that resent the PUBLISH instead would deliver it twice.
 */
export function deliveryAnswered(s: SessionState, effect: DeliveryEffect): Promise<void> | undefined {
  const clientId = s.clientId;
  const generation = s.generation;
  if (effect.kind === "delivery-received") {
    if (clientId !== undefined && generation !== undefined) s.router.pubrec(clientId, generation, effect.packetId);
    return s.options.commits?.flush();
  }
  if (clientId !== undefined && generation !== undefined) {
    s.router.acknowledge(clientId, generation, effect.packetId);
    s.host.deliveryProgressed(clientId);
  }
  return undefined;
}
