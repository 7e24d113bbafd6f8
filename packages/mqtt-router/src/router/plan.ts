/**
 * Plan-then-execute delivery. A plan is built synchronously — in Node, one synchronous run *is*
 * the read lock over subscriptions and sessions — and may be executed later, after an await
 * (a storage commit, backpressure). Each target carries the session object and the queue epoch
 * it was planned under; a clean start or an expiry discards the session's queue and bumps the
 * epoch, so a stale target is refused at execution, while a resumed session (same epoch) still
 * gets the message its publisher was already promised [MQTT-4.5.0-1].
 * @module
 */
import type { QoS } from "../codec/packet.js";
import type { Delivery, Message } from "./message.js";
import type { ReadonlySession, Session } from "./mqtt-session.js";
import type { SharedGroup } from "./shared-group.js";
import type { SessionSubscription } from "./subscription.js";
import type { TopicTrie } from "./topic-trie.js";

/**
 * One session's copy in a plan. A plan's holder sees the session read-only; the router keeps its
 * own record of the plan's targets with the sessions it may change.
 */
export interface PlanTarget<S extends ReadonlySession = ReadonlySession> {
  /** The session to deliver to, seen read-only by the plan's holder. */
  readonly session: S;
  /** The session's queue epoch when planned: the fence. */
  readonly epoch: number;
  /** This session's copy (QoS, RETAIN and Subscription Identifiers for it). */
  readonly delivery: Delivery;
}

/** What a publish will do, decided synchronously. */
export interface DeliveryPlan<S extends ReadonlySession = ReadonlySession> {
  /** The message being published. */
  readonly message: Message;
  /** One per session that gets a copy; empty when nothing matched. */
  readonly targets: readonly PlanTarget<S>[];
}

/** The subscription indexes a plan reads. */
export interface PlanIndexes {
  /** Plain subscriptions: id is the client id. */
  readonly subscriptions: TopicTrie<{ readonly session: Session; readonly subscription: SessionSubscription }>;
  /** Shared groups: id is the group name. */
  readonly shared: TopicTrie<SharedGroup>;
}

/** One session's merged matches while planning. */
interface Merged {
  readonly session: Session;
  granted: QoS;
  retain: boolean;
  ids: readonly number[];
}

/** The Subscription Identifiers of a copy that has none: shared, never changed. */
const NO_IDS: readonly number[] = Object.freeze([]);

const minQos = (a: QoS, b: QoS): QoS => (a < b ? a : b);
const maxQos = (a: QoS, b: QoS): QoS => (a > b ? a : b);

/**
 * Builds the plan for `message`: one copy per session with plain matches (overlapping
 * subscriptions merged: the highest granted QoS, every Subscription Identifier [MQTT-3.3.4-3..5],
 * retain-as-published if any match asks for it), plus one copy per matching shared group to one
 * chosen member.
 */
export function planDelivery(message: Message, indexes: PlanIndexes): DeliveryPlan<Session> {
  // Allocations here are per message: the common single-match case (fan-in) builds no Map, and
  // copies without Subscription Identifiers share one empty list.
  let first: Merged | undefined;
  let merged: Map<Session, Merged> | undefined;
  // Each session's read check runs once per message, however many of its filters match.
  let verdicts: Map<Session, boolean> | undefined;
  const mayRead = (session: Session): boolean => {
    if (session.readable === undefined) return true;
    verdicts ??= new Map();
    let verdict = verdicts.get(session);
    if (verdict === undefined) verdicts.set(session, (verdict = session.readable(message.topic)));
    return verdict;
  };
  indexes.subscriptions.match(message.topic, ({ session, subscription }) => {
    if (subscription.noLocal && message.origin === session.clientId) return; // [MQTT-3.8.3-3]
    if (!mayRead(session)) return; // the ACL at delivery: an overlapping filter gets no denied topic
    const entry = first?.session === session ? first : merged?.get(session);
    const retain = subscription.retainAsPublished && message.retain;
    const id = subscription.subscriptionId;
    if (entry === undefined) {
      const created: Merged = { session, granted: subscription.qos, retain, ids: id === undefined ? NO_IDS : [id] };
      if (first === undefined) {
        first = created;
      } else {
        merged ??= new Map([[first.session, first]]);
        merged.set(session, created);
      }
    } else {
      entry.granted = maxQos(entry.granted, subscription.qos);
      entry.retain ||= retain;
      if (id !== undefined) entry.ids = [...entry.ids, id];
    }
  });
  const targets: PlanTarget<Session>[] = [];
  const toTarget = ({ session, granted, retain, ids }: Merged): PlanTarget<Session> => ({
    session,
    epoch: session.queue.epoch,
    delivery: { message, qos: minQos(message.qos, granted), retain, subscriptionIds: ids },
  });
  if (merged !== undefined) {
    for (const entry of merged.values()) targets.push(toTarget(entry));
  } else if (first !== undefined) {
    targets.push(toTarget(first));
  }
  indexes.shared.match(message.topic, (group) => {
    // Shared subscriptions are not subject to no-local [MQTT-3.8.3-4] forbids it on SUBSCRIBE.
    const member = group.pick(message.qos > 0);
    if (member === undefined) return;
    const { session, subscription } = member;
    if (!mayRead(session)) return;
    targets.push({
      session,
      epoch: session.queue.epoch,
      delivery: {
        message,
        qos: minQos(message.qos, subscription.qos),
        retain: subscription.retainAsPublished && message.retain,
        subscriptionIds: subscription.subscriptionId === undefined ? NO_IDS : [subscription.subscriptionId],
      },
    });
  });
  return { message, targets };
}
