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

/** One session's merged matches while planning, once a second session matched. */
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
 * The state of one planning run. The visitors handed to the tries are made once per instance, not
 * per message, and the first matching session is held in fields: the common single-match case
 * (fan-in) allocates only its target, its delivery and the plan.
 */
class Planning {
  #message: Message | undefined;
  #targets: PlanTarget<Session>[] = [];
  #firstSession: Session | undefined;
  #firstGranted: QoS = 0;
  #firstRetain = false;
  #firstIds: readonly number[] = NO_IDS;
  /** Every matching session, once a second one matched (the first included). */
  #merged: Map<Session, Merged> | undefined;
  // Each session's read check runs once per message, however many of its filters match.
  #verdicts: Map<Session, boolean> | undefined;

  #sharedCopy: SharedCopy | undefined;

  /** Builds the plan (see {@link planDelivery}). */
  run(message: Message, indexes: PlanIndexes, sharedCopy: SharedCopy | undefined): DeliveryPlan<Session> {
    this.#message = message;
    this.#sharedCopy = sharedCopy;
    const targets: PlanTarget<Session>[] = [];
    this.#targets = targets;
    try {
      indexes.subscriptions.match(message.topic, this.#visitPlain);
      if (this.#merged !== undefined) {
        for (const m of this.#merged.values()) targets.push(target(message, m.session, m.granted, m.retain, m.ids));
      } else if (this.#firstSession !== undefined) {
        targets.push(target(message, this.#firstSession, this.#firstGranted, this.#firstRetain, this.#firstIds));
      }
      if (indexes.shared.size > 0) indexes.shared.match(message.topic, this.#visitShared);
    } finally {
      // Nothing of this message stays reachable from the reused instance.
      this.#message = undefined;
      this.#targets = [];
      this.#firstSession = undefined;
      this.#firstIds = NO_IDS;
      this.#merged = undefined;
      this.#verdicts = undefined;
      this.#sharedCopy = undefined;
    }
    return { message, targets };
  }

  #mayRead(session: Session, topic: string): boolean {
    if (session.readable === undefined) return true;
    this.#verdicts ??= new Map();
    let verdict = this.#verdicts.get(session);
    if (verdict === undefined) this.#verdicts.set(session, (verdict = session.readable(topic)));
    return verdict;
  }

  readonly #visitPlain = ({ session, subscription }: { readonly session: Session; readonly subscription: SessionSubscription }): void => {
    const message = this.#message;
    if (message === undefined) return;
    if (subscription.noLocal && message.origin === session.clientId) return; // [MQTT-3.8.3-3]
    if (!this.#mayRead(session, message.topic)) return; // the ACL at delivery: an overlapping filter gets no denied topic
    const retain = subscription.retainAsPublished && message.retain;
    const id = subscription.subscriptionId;
    if (this.#firstSession === undefined) {
      this.#firstSession = session;
      this.#firstGranted = subscription.qos;
      this.#firstRetain = retain;
      this.#firstIds = id === undefined ? NO_IDS : [id];
      return;
    }
    if (this.#merged === undefined && this.#firstSession === session) {
      this.#firstGranted = maxQos(this.#firstGranted, subscription.qos);
      this.#firstRetain ||= retain;
      if (id !== undefined) this.#firstIds = [...this.#firstIds, id];
      return;
    }
    this.#merged ??= new Map([[this.#firstSession, { session: this.#firstSession, granted: this.#firstGranted, retain: this.#firstRetain, ids: this.#firstIds }]]);
    const entry = this.#merged.get(session);
    if (entry === undefined) {
      this.#merged.set(session, { session, granted: subscription.qos, retain, ids: id === undefined ? NO_IDS : [id] });
      return;
    }
    entry.granted = maxQos(entry.granted, subscription.qos);
    entry.retain ||= retain;
    if (id !== undefined) entry.ids = [...entry.ids, id];
  };

  readonly #visitShared = (group: SharedGroup): void => {
    const message = this.#message;
    if (message === undefined) return;
    // Shared subscriptions are not subject to no-local [MQTT-3.8.3-4] forbids it on SUBSCRIBE.
    if (this.#sharedCopy !== undefined && !this.#sharedCopy(message, group.name, group.filter)) return;
    const member = group.pick(message.qos > 0);
    if (member === undefined) return;
    const { session, subscription } = member;
    if (!this.#mayRead(session, message.topic)) return;
    const ids = subscription.subscriptionId === undefined ? NO_IDS : [subscription.subscriptionId];
    this.#targets.push(target(message, session, subscription.qos, subscription.retainAsPublished && message.retain, ids));
  };
}

function target(message: Message, session: Session, granted: QoS, retain: boolean, ids: readonly number[]): PlanTarget<Session> {
  return { session, epoch: session.queue.epoch, delivery: { message, qos: minQos(message.qos, granted), retain, subscriptionIds: ids } };
}

/** The instance {@link planDelivery} reuses; taken while a run is under way (a read check may publish). */
let spare: Planning | undefined = new Planning();

/** Whether a shared group's copy of a message is delivered here (see RouterOptions.sharedCopy). */
export type SharedCopy = (message: Message, group: string, filter: string) => boolean;

/**
 * Builds the plan for `message`: one copy per session with plain matches (overlapping
 * subscriptions merged: the highest granted QoS, every Subscription Identifier [MQTT-3.3.4-3..5],
 * retain-as-published if any match asks for it), plus one copy per matching shared group to one
 * chosen member (of the groups `sharedCopy` leaves here, when given).
 */
export function planDelivery(message: Message, indexes: PlanIndexes, sharedCopy?: SharedCopy): DeliveryPlan<Session> {
  const planning = spare ?? new Planning();
  spare = undefined;
  try {
    return planning.run(message, indexes, sharedCopy);
  } finally {
    spare = planning;
  }
}
