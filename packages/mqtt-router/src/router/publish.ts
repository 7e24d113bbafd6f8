/**
 * Publishing: a message is planned synchronously (who gets which copy, under which queue epoch;
 * see plan.ts) and executed now or after an await, when a retained message is stored and each
 * copy still at its planned epoch is queued and pumped out.
 * @module
 */
import { enqueue, pump } from "./delivery.js";
import type { Message } from "./message.js";
import { planDelivery, type DeliveryPlan, type PlanTarget } from "./plan.js";
import type { Session } from "./mqtt-session.js";
import { isCongested } from "./pressure.js";
import { deliveryContext, type RouterState } from "./router-state.js";

/** What executing a plan did. */
export interface ExecuteOutcome {
  /** Copies put on queues (and sent at once where the owner had room). */
  readonly queued: number;
  /** Copies refused because their session was discarded since planning. */
  readonly stale: number;
  /** Copies dropped by policy (counted in stats by reason). */
  readonly dropped: number;
  /** True when no subscription matched (MQTT 5 PUBACK 0x10 No matching subscribers). */
  readonly noMatchingSubscribers: boolean;
  /** True when the whole plan was refused as stale: executed before, or made by another router. */
  readonly refused: boolean;
  /** True when the message asked to be retained and a retained-store limit refused it (it was delivered). */
  readonly retainRefused: boolean;
  /**
   * Client ids of online sessions this message left at or above the high-water mark: the
   * publisher should be slowed until {@link Router.backlogged} is false for each (router
   * invariant 8: a full queue slows its publishers instead of dropping what they were acked).
   */
  readonly congested: readonly string[];
}

const NONE: readonly string[] = [];

/** Plans `message` and remembers the plan as not executed yet. */
export function plan(state: RouterState, message: Message): DeliveryPlan {
  const planned = planDelivery(message, state.index.indexes, state.settings.sharedCopy);
  state.unexecuted.set(planned, planned.targets);
  return planned;
}

/** Executes a plan made by {@link plan}, at most once. */
export function execute(state: RouterState, planned: DeliveryPlan): ExecuteOutcome {
  // A second execute, or a plan of another router (one from before an in-process restore), is
  // stale whole: it delivers, retains and stores nothing.
  const targets = state.unexecuted.get(planned);
  if (targets === undefined) {
    const stale = planned.targets.length;
    state.stats.drop("stale-plan", stale);
    return { queued: 0, stale, dropped: 0, noMatchingSubscribers: stale === 0, refused: true, retainRefused: false, congested: NONE };
  }
  state.unexecuted.delete(planned);
  return run(state, planned.message, targets);
}

// Queues the planned copies (the plan is known fresh and executed once: see execute and publish).
function run(state: RouterState, message: Message, targets: readonly PlanTarget<Session>[]): ExecuteOutcome {
  const ctx = deliveryContext(state);
  state.stats.published += 1;
  const retainRefused = message.retain && !retain(state, message);
  if (targets.length === 0) state.stats.unmatched += 1;
  let queued = 0;
  let stale = 0;
  let dropped = 0;
  let congested: string[] | undefined;
  for (const target of targets) {
    const { session, delivery } = target;
    // Staleness first: a QoS 0 copy for a discarded session is stale, not an offline drop.
    if (session.ended || session.queue.epoch !== target.epoch) {
      state.stats.drop("stale-plan");
      stale += 1;
      continue;
    }
    if (delivery.qos === 0 && !session.connected && !state.settings.queueQos0Offline) {
      state.stats.drop("offline-qos0");
      dropped += 1;
      continue;
    }
    const outcome = enqueue(session, target.epoch, delivery, ctx);
    if (outcome === "queued") {
      queued += 1;
      pump(session, ctx);
      if (isCongested(session, state.settings.marks)) (congested ??= []).push(session.clientId);
    } else if (outcome === "stale") stale += 1;
    else dropped += 1;
  }
  state.settings.onPublished?.(message);
  return { queued, stale, dropped, noMatchingSubscribers: targets.length === 0, refused: false, retainRefused, congested: congested ?? NONE };
}

/**
 * Plans and executes at once. Nothing can run between the two, so the plan is never registered
 * as unexecuted: no WeakMap entry (an ephemeron, about 125 ns) per message.
 */
export function publish(state: RouterState, message: Message): ExecuteOutcome {
  return run(state, message, planDelivery(message, state.index.indexes, state.settings.sharedCopy).targets);
}

// Stores a retained message (an empty payload deletes), unless a limit refuses it: then the
// topic's older message goes too, as it is no longer the topic's last state. False if refused.
function retain(state: RouterState, message: Message): boolean {
  const refusal = message.payload.byteLength === 0 ? undefined : state.retained.refusal(message, state.settings.retainedLimits);
  if (refusal !== undefined) {
    state.stats.limitsExceeded[refusal === "count" ? "retained-messages" : "retained-bytes"] += 1;
    if (state.retained.delete(message.topic)) state.store.retainedChanged(message.topic, undefined);
    return false;
  }
  state.store.retainedChanged(message.topic, state.retained.set(message));
  return true;
}

/** Deletes the retained message of `topic` without routing anything; false when there was none. */
export function clearRetained(state: RouterState, topic: string): boolean {
  if (!state.retained.delete(topic)) return false;
  state.store.retainedChanged(topic, undefined);
  return true;
}
