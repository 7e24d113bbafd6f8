/**
 * The router: sessions, subscriptions, retained messages and delivery, sans-I/O.
 *
 * Every call from a connection carries the generation the connection was given at CONNECT. A
 * displaced connection (its session taken over) holds a stale generation and is refused: it
 * cannot subscribe, unsubscribe, acknowledge, arm or fire a will, or release the session
 * (docs/INVARIANTS.md, router invariant 7).
 *
 * This class is the facade: each behaviour lives in its own module over one shared
 * {@link RouterState} — takeover.ts (connect, bind), session-lifetime.ts (disconnect, expiry,
 * tick), wills.ts, subscriptions.ts, publish.ts (plan, execute), acks.ts, restore.ts and
 * router-views.ts (what operators read).
 * @module
 */
import { acknowledge, inboundQos2, pubrec } from "./acks.js";
import { adopt, forget } from "./handoff.js";
import type { Message } from "./message.js";
import type { DeliverySink } from "./sink.js";
import type { DeliveryPlan } from "./plan.js";
import { isBacklogged } from "./pressure.js";
import { clearRetained, execute, plan as makePlan, publish, type ExecuteOutcome } from "./publish.js";
import { restore } from "./restore.js";
import type { RouterOptions } from "./router-options.js";
import { createState, type RouterState, type Stale } from "./router-state.js";
import { queueTotals, retainedPage, sessionViews, subscriptionViews, type PageOptions } from "./router-views.js";
import type { ReadonlySession } from "./mqtt-session.js";
import { disconnect, endSessionByOperator, tick, type DisconnectOptions, type RouterEvent } from "./session-lifetime.js";
import { viewSession, type RetainedPage, type SessionView, type SubscriptionView } from "./session-view.js";
import type { RouterStats } from "./stats.js";
import type { RouterSnapshot, SessionSnapshot } from "./store.js";
import { subscribe, unsubscribe, type SubscribeGrant, type SubscribeRequest } from "./subscriptions.js";
import { admitsSession, bind, connect, unbind, type ConnectOutcome, type ConnectRequest } from "./takeover.js";

/**
 * The MQTT router. `Sink` is its type of connection (what a CONNECT hands it, what
 * {@link Router.owner} gives back): the router is the one registry of who owns a client id.
 */
export class Router<Sink extends DeliverySink = DeliverySink> {
  /** What the router counted (deliveries, drops by reason, takeovers, limits). */
  readonly stats: RouterStats;
  readonly #state: RouterState;

  constructor(options: RouterOptions) {
    this.#state = createState(options);
    this.stats = this.#state.stats;
  }

  /** How many sessions exist (connected or not). */
  get sessionCount(): number {
    return this.#state.sessions.size;
  }

  /** How many subscriptions exist (plain and shared). */
  get subscriptionCount(): number {
    return this.#state.index.size;
  }

  /** How many retained messages are held. */
  get retainedCount(): number {
    return this.#state.retained.size;
  }

  /** Bytes the retained messages hold (what `maxRetainedBytes` bounds). */
  get retainedBytes(): number {
    return this.#state.retained.bytes;
  }

  /**
   * Whether a CONNECT for `clientId` may claim a session: it has one already (resumed, or replaced
   * by a clean start), or there are fewer than `maxSessions`. Check it in the same synchronous turn
   * as {@link Router.connect}; refuse with CONNACK 0x97 (3.1.1: 3) when false.
   */
  admitsSession(clientId: string): boolean {
    return admitsSession(this.#state, clientId);
  }

  /**
   * The session of `clientId`, live but read-only, for inspection (tests, `$SYS`): only the router
   * changes a session. For a copy taken at one instant, see {@link Router.sessionView}.
   */
  session(clientId: string): ReadonlySession | undefined {
    return this.#state.sessions.get(clientId);
  }

  /** A read-only view of `clientId`'s session, if it has one. */
  sessionView(clientId: string): SessionView | undefined {
    const session = this.#state.sessions.get(clientId);
    return session === undefined ? undefined : viewSession(session);
  }

  /**
   * Up to `limit` sessions (connected or not) as read-only views, in client id order (UTF-16
   * code units) after the client id `after`; `next` is set when more follow.
   */
  sessionViews(options: PageOptions): { readonly sessions: readonly SessionView[]; readonly next?: string } {
    return sessionViews(this.#state, options);
  }

  /** `clientId`'s subscriptions as read-only views, in filter order; undefined without a session. */
  subscriptionViews(clientId: string): readonly SubscriptionView[] | undefined {
    return subscriptionViews(this.#state, clientId);
  }

  /** Queued and in-flight deliveries summed over every session. */
  get queueTotals(): { readonly queued: number; readonly inflight: number } {
    return queueTotals(this.#state);
  }

  /**
   * Up to `limit` retained messages matching `filter` (a valid plain topic filter, no `$share/`)
   * as read-only copies, in topic order after the topic `after`; `next` is set when more follow.
   * Expired messages are skipped.
   */
  retainedPage(filter: string, options: PageOptions): RetainedPage {
    return retainedPage(this.#state, filter, options);
  }

  /**
   * Ends the session of `clientId` on an operator's request, as expiry would: a pending will is
   * published first [MQTT-3.1.2-8], then subscriptions and queue are discarded (counted as
   * `session-discarded`) and the store deletes the session. Only a session nobody owns can be
   * ended: a connected client must be disconnected first, so the fence of its connection is
   * released by the router's own rules.
   */
  endSession(clientId: string): { readonly ok: true; readonly discarded: number } | { readonly ok: false; readonly reason: "unknown" | "connected" } {
    return endSessionByOperator(this.#state, clientId);
  }

  /**
   * Deletes the retained message of `topic`, as a retained PUBLISH with an empty payload would
   * [MQTT-3.3.1-6], without routing anything to subscribers; the store records the deletion.
   * False when the topic held none.
   */
  clearRetained(topic: string): boolean {
    return clearRetained(this.#state, topic);
  }

  /**
   * Rebuilds state from a durable store after a restart, before any connection: sessions come
   * back disconnected (expiry counting from their stored disconnect time, or from now if they
   * were connected when the process died), their queues in sequence order with in-flight
   * deliveries keeping their packet ids for a DUP=1 resend first, their subscriptions and
   * pending wills; retained messages too. Generations continue above every stored one.
   */
  restore(snapshot: RouterSnapshot): void {
    restore(this.#state, snapshot);
  }

  /**
   * Cluster handoff: drops this router's copy of `clientId`'s session because another node claimed
   * the client id (the shared store's state is that node's now). Nothing is written to the store;
   * a connection here that held the session is displaced (its calls are stale; close it with
   * DISCONNECT 0x8E), plans built for the session are refused, and its will and expiry lapse here.
   * False when there was no session.
   */
  forget(clientId: string): boolean {
    return forget(this.#state, clientId);
  }

  /**
   * Cluster handoff: replaces this router's copy of `clientId`'s session with `stored`, what the
   * shared store holds (undefined: no session), right before a CONNECT here claims it. A session
   * stored as connected was another node's connection's: that counts as a takeover (a session with
   * expiry 0 ends, a will without delay is published). Nothing is written to the store otherwise.
   */
  adopt(clientId: string, stored: SessionSnapshot | undefined): void {
    adopt(this.#state, clientId, stored);
  }

  /**
   * A connection claims `clientId`'s session (CONNECT). Synchronous: the takeover is complete when
   * this returns. A clean start discards any existing session (its queue epoch moves on, so plans
   * built for it are refused later); a resume keeps it, and the displaced connection's in-flight
   * deliveries go back to the front of the queue with their packet ids for a DUP=1 resend. The new
   * owner is *behind* until {@link Router.bind}: nothing is sent to it before then.
   */
  connect(request: ConnectRequest<Sink>): ConnectOutcome {
    return connect(this.#state, request);
  }

  /** The connection that owns `clientId`'s session now (bound or not), if one does. */
  owner(clientId: string): Sink | undefined {
    // Every owner's sink came in through connect(), which takes a Sink only.
    return this.#state.sessions.get(clientId)?.owner?.sink as Sink | undefined;
  }

  /**
   * Holds deliveries to the connection `generation` back until it binds again: new copies wait on
   * the session queue, in order, behind what is queued. Used while an acknowledgement that must
   * come first (a SUBACK before the retained messages it brings) waits for the store's commit.
   * False for a stale generation.
   */
  unbind(clientId: string, generation: number): boolean {
    return unbind(this.#state, clientId, generation);
  }

  /**
   * The owner `generation` is ready (CONNACK sent after the session claim was committed): resend
   * in-flight deliveries with DUP=1, then the queue, in order. Returns false if stale.
   */
  bind(clientId: string, generation: number): boolean {
    return bind(this.#state, clientId, generation);
  }

  /**
   * The connection `generation` closed. `publishWill` is false after a normal DISCONNECT (0x00)
   * [MQTT-3.14.4-3]; `sessionExpiryInterval` is the value from DISCONNECT, if it carried one.
   * A stale generation (a displaced connection) is refused: it cannot release the session or fire
   * a will.
   */
  disconnect(clientId: string, generation: number, options: DisconnectOptions): { readonly ok: true } | Stale {
    return disconnect(this.#state, clientId, generation, options);
  }

  /**
   * Adds or replaces subscriptions [MQTT-3.8.4-3] and queues matching retained messages per
   * retain handling [MQTT-3.3.1-9..11]. Returns the granted QoS per filter, or 0x97 Quota exceeded
   * for a new filter past `maxSubscriptionsPerSession` (counted; nothing else changes for it).
   * `$share/` filters are shared subscriptions for MQTT 5 owners.
   */
  subscribe(
    clientId: string,
    generation: number,
    requests: readonly SubscribeRequest[],
    subscriptionId?: number,
  ): { readonly ok: true; readonly granted: readonly SubscribeGrant[] } | Stale {
    return subscribe(this.#state, clientId, generation, requests, subscriptionId);
  }

  /** Removes subscriptions; returns per filter whether one existed (UNSUBACK 0x00 / 0x11). */
  unsubscribe(clientId: string, generation: number, filters: readonly string[]): { readonly ok: true; readonly existed: readonly boolean[] } | Stale {
    return unsubscribe(this.#state, clientId, generation, filters);
  }

  /**
   * Plans a publish synchronously (see plan.ts). Execute it with {@link Router.execute}, now or
   * after an await; plans for sessions discarded in between are refused then.
   */
  plan(message: Message): DeliveryPlan {
    return makePlan(this.#state, message);
  }

  /**
   * Executes a plan: updates the retained store if the message is retained, and queues each copy
   * whose session is still at the planned epoch, sending at once where the owner has room.
   */
  execute(plan: DeliveryPlan): ExecuteOutcome {
    return execute(this.#state, plan);
  }

  /** Plans and executes at once. */
  publish(message: Message): ExecuteOutcome {
    return publish(this.#state, message);
  }

  /**
   * True while `clientId`'s session is online and its queue is above the low-water mark: a
   * publisher slowed for it (see {@link ExecuteOutcome.congested}) keeps waiting.
   */
  backlogged(clientId: string): boolean {
    const session = this.#state.sessions.get(clientId);
    return session !== undefined && isBacklogged(session, this.#state.settings.marks);
  }

  /**
   * The client finished a delivery: PUBACK (QoS 1), PUBCOMP (QoS 2), or a PUBACK/PUBREC with an
   * error reason code, which also ends the flow [MQTT-4.4.0-2]. Frees a Receive Maximum slot.
   */
  acknowledge(clientId: string, generation: number, packetId: number): { readonly ok: true; readonly known: boolean } | Stale {
    return acknowledge(this.#state, clientId, generation, packetId);
  }

  /** The client sent PUBREC (success) for a QoS 2 delivery: the connection sends PUBREL next. */
  pubrec(clientId: string, generation: number, packetId: number): { readonly ok: true; readonly known: boolean } | Stale {
    return pubrec(this.#state, clientId, generation, packetId);
  }

  /**
   * Records an inbound QoS 2 packet id as received (`true`, on its first PUBLISH) or released
   * (`false`, on PUBREL); it is session state that survives reconnects [MQTT-4.3.3-*].
   */
  inboundQos2(clientId: string, generation: number, packetId: number, received: boolean): { readonly ok: true } | Stale {
    return inboundQos2(this.#state, clientId, generation, packetId, received);
  }

  /** Runs what is due at the clock's current time: delayed wills and session expiry. */
  tick(): RouterEvent[] {
    return tick(this.#state);
  }
}
