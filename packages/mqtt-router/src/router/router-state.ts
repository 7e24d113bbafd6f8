/**
 * The one state object the router's modules share (takeover, session lifetime, subscriptions,
 * publish, restore, views): built once by the {@link Router} facade and passed to each module's
 * functions, so which module reads or changes what is visible at every call.
 * @module
 */
import { GenerationAllocator, type Clock } from "@handoff/seqlog";
import { Deadlines } from "./deadlines.js";
import type { DeliveryContext } from "./delivery.js";
import type { DeliveryPlan, PlanTarget } from "./plan.js";
import { RetainedStore } from "./retained-store.js";
import { resolveSettings, type RouterOptions, type RouterSettings } from "./router-options.js";
import type { Session } from "./mqtt-session.js";
import { RouterStats } from "./stats.js";
import { memoryOnlyStore, type RouterStore } from "./store.js";
import { SubscriptionIndex } from "./subscription-index.js";

/** A will delay or a session expiry, re-checked against its session when it falls due. */
export interface Timer {
  readonly kind: "will" | "expiry";
  readonly session: Session;
  /** The generation of the connection whose leaving set it. */
  readonly token: number;
}

/** Everything the router holds. */
export interface RouterState {
  readonly clock: Clock;
  readonly store: RouterStore;
  readonly generations: GenerationAllocator;
  readonly settings: RouterSettings;
  readonly stats: RouterStats;
  /** Sessions by client id, connected or not. */
  readonly sessions: Map<string, Session>;
  readonly index: SubscriptionIndex;
  readonly retained: RetainedStore;
  readonly timers: Deadlines<Timer>;
  /**
   * Plans made here and not executed yet, with their targets' writable sessions: a plan runs at
   * most once, and only where it was made.
   */
  readonly unexecuted: WeakMap<DeliveryPlan, readonly PlanTarget<Session>[]>;
}

/** A router's state, empty. */
export function createState(options: RouterOptions): RouterState {
  return {
    clock: options.clock,
    store: options.store ?? memoryOnlyStore,
    generations: options.generations ?? new GenerationAllocator(),
    settings: resolveSettings(options),
    stats: new RouterStats(),
    sessions: new Map(),
    index: new SubscriptionIndex(options.onSharedGroup),
    retained: new RetainedStore(),
    timers: new Deadlines<Timer>(),
    unexecuted: new WeakMap(),
  };
}

/** What delivery needs now. */
export function deliveryContext(state: RouterState): DeliveryContext {
  return { now: state.clock.now(), stats: state.stats, store: state.store, overflow: state.settings.overflow };
}

/** Refusal of a call from a connection that no longer owns its session. */
export interface Stale {
  /** Tells a refusal from a success result. */
  readonly ok: false;
  /** The caller's generation no longer owns the session (another connection took it over). */
  readonly reason: "stale-generation";
}

/** The one {@link Stale} answer. */
export const STALE: Stale = { ok: false, reason: "stale-generation" };

/** The session, if `generation` is its current owner: the fence every connection call passes. */
export function ownedSession(state: RouterState, clientId: string, generation: number): Session | undefined {
  const session = state.sessions.get(clientId);
  return session?.ownedBy(generation) === true ? session : undefined;
}
