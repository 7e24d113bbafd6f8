/**
 * The router: sessions, subscriptions, retained messages and delivery, sans-I/O.
 *
 * Every call from a connection carries the generation the connection was given at CONNECT. A
 * displaced connection (its session taken over) holds a stale generation and is refused: it
 * cannot subscribe, unsubscribe, acknowledge, arm or fire a will, or release the session
 * (DESIGN.md router invariant 7).
 * @module
 */
import { GenerationAllocator, type Clock, type QueueLimits } from "@handoff/seqlog";
import { parseSharedFilter } from "../codec/topic.js";
import { SESSION_NEVER_EXPIRES, type ProtocolVersion, type QoS } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { Deadlines } from "./deadlines.js";
import { complete, enqueue, pump, received, type DeliveryContext, type OverflowPolicy } from "./delivery.js";
import { deliverySize, type Message } from "./message.js";
import { planDelivery, type DeliveryPlan } from "./plan.js";
import { DEFAULT_MARKS, isBacklogged, isCongested, type PressureMarks } from "./pressure.js";
import { RetainedStore, type RetainedLimits } from "./retained-store.js";
import { Session } from "./session.js";
import { viewRetained, viewSession, viewSubscription, type RetainedPage, type SessionView, type SubscriptionView } from "./session-view.js";
import { SharedGroup } from "./shared-group.js";
import type { DeliverySink } from "./sink.js";
import { RouterStats } from "./stats.js";
import { memoryOnlyStore, type RouterSnapshot, type RouterStore } from "./store.js";
import type { SessionSubscription, SubscriptionOptions } from "./subscription.js";
import { TopicTrie } from "./topic-trie.js";

/** Router settings. */
export interface RouterOptions {
  /** The injected clock (ms). */
  readonly clock: Clock;
  /** Where durable changes are reported; memory only by default. */
  readonly store?: RouterStore;
  /** Generation source; seed it from storage and the wall clock in the app. */
  readonly generations?: GenerationAllocator;
  /** Per-session queue bounds (queued + in flight). Default 10,000 messages / 64 MiB. */
  readonly queueLimits?: Partial<QueueLimits>;
  /** What a QoS 1/2 copy meeting a full queue does; default drop-oldest. */
  readonly overflow?: OverflowPolicy;
  /** Queue QoS 0 copies for disconnected sessions too (default false, like most brokers). */
  readonly queueQos0Offline?: boolean;
  /** Upper bound for Session Expiry Interval, seconds (default: no bound). */
  readonly maxSessionExpiry?: number;
  /** Flow control marks on online sessions' queues (see {@link ExecuteOutcome.congested}). */
  readonly pressure?: Partial<PressureMarks>;
  /**
   * Most sessions (connected or not); a CONNECT that would create one more is refused by the app
   * after {@link Router.admitsSession} (default: no bound). Restored sessions always come back.
   */
  readonly maxSessions?: number;
  /** Most subscriptions one session holds; a new filter past it gets SUBACK 0x97 (default: no bound). */
  readonly maxSubscriptionsPerSession?: number;
  /**
   * Most topics holding a retained message (default: no bound). A retained message for a new
   * topic past it is still delivered but not stored, and counted ({@link RouterStats.limitsExceeded}).
   */
  readonly maxRetainedMessages?: number;
  /**
   * Most bytes the retained messages hold, as `messageSize` counts them (default: no bound). A
   * retained message past it is delivered, not stored, and counted; if its topic held an older
   * one, that is deleted, so no new subscriber is handed a state the publisher replaced.
   */
  readonly maxRetainedBytes?: number;
}

/** A connection asking to own a session. */
export interface ConnectRequest {
  readonly clientId: string;
  readonly cleanStart: boolean;
  /** Seconds; 0 ends the session with the connection; 0xFFFFFFFF never expires. */
  readonly sessionExpiryInterval: number;
  /** The client's Receive Maximum (1..65535). */
  readonly receiveMaximum: number;
  readonly protocolVersion: ProtocolVersion;
  readonly sink: DeliverySink;
  /**
   * Whether this client may read `topic` (the ACL at delivery): a copy for a topic it may not read
   * is never queued nor sent, whatever filter matched it. Absent: everything is readable.
   */
  readonly readable?: (topic: string) => boolean;
  /**
   * The will, with its delay in seconds and its Message Expiry Interval in seconds, which starts
   * counting when the will is published; `message.expiresAt` is ignored.
   */
  readonly will?: { readonly message: Message; readonly delaySeconds: number; readonly expirySeconds?: number };
}

/** The router's answer to a CONNECT. */
export interface ConnectOutcome {
  /** The new connection's generation: its fence token for every later call. */
  readonly generation: number;
  /** Session Present for CONNACK [MQTT-3.2.2-2/3]. */
  readonly sessionPresent: boolean;
  /** The Session Expiry Interval in force (lower than asked if the server caps it). */
  readonly sessionExpiryInterval: number;
  /** Inbound QoS 2 packet ids still awaiting PUBREL, for the protocol's dedupe. */
  readonly inboundQos2: readonly number[];
  /** The displaced connection's generation, if the session was taken over: send it DISCONNECT 0x8E. */
  readonly displaced?: number;
}

/** One filter of a SUBSCRIBE. */
export interface SubscribeRequest extends Omit<SubscriptionOptions, "subscriptionId"> {
  readonly filter: string;
}

/** What {@link Router.subscribe} answers per filter: the granted QoS, or 0x97 Quota exceeded. */
export type SubscribeGrant = QoS | typeof ReasonCode.QuotaExceeded;

/** Refusal of a call from a connection that no longer owns its session. */
export interface Stale {
  readonly ok: false;
  readonly reason: "stale-generation";
}

const STALE: Stale = { ok: false, reason: "stale-generation" };

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

/** Something the router did on its own during {@link Router.tick}, for logs and metrics. */
export type RouterEvent =
  | { readonly kind: "will-published"; readonly clientId: string; readonly topic: string }
  | { readonly kind: "session-expired"; readonly clientId: string; readonly discarded: number };

interface Timer {
  readonly kind: "will" | "expiry";
  readonly session: Session;
  readonly token: number;
}

const DEFAULT_LIMITS: QueueLimits = { maxCount: 10_000, maxBytes: 64 * 1024 * 1024 };

/** The MQTT router. */
export class Router {
  readonly stats = new RouterStats();
  readonly #clock: Clock;
  readonly #store: RouterStore;
  readonly #generations: GenerationAllocator;
  readonly #limits: QueueLimits;
  readonly #overflow: OverflowPolicy;
  readonly #queueQos0Offline: boolean;
  readonly #maxExpiry: number;
  readonly #marks: PressureMarks;
  readonly #maxSessions: number;
  readonly #maxSubscriptions: number;
  readonly #retainedLimits: RetainedLimits;
  readonly #sessions = new Map<string, Session>();
  readonly #subscriptions = new TopicTrie<{ readonly session: Session; readonly subscription: SessionSubscription }>();
  readonly #shared = new TopicTrie<SharedGroup>();
  /** Members across all shared groups, kept by #index/#unindex (metrics read it per scrape). */
  #sharedMembers = 0;
  readonly #retained = new RetainedStore();
  readonly #timers = new Deadlines<Timer>();
  /** Plans made here and not executed yet: a plan runs at most once, and only where it was made. */
  readonly #unexecuted = new WeakSet<DeliveryPlan>();

  constructor(options: RouterOptions) {
    this.#clock = options.clock;
    this.#store = options.store ?? memoryOnlyStore;
    this.#generations = options.generations ?? new GenerationAllocator();
    this.#limits = { ...DEFAULT_LIMITS, ...options.queueLimits };
    this.#overflow = options.overflow ?? "drop-oldest";
    this.#queueQos0Offline = options.queueQos0Offline ?? false;
    this.#maxExpiry = options.maxSessionExpiry ?? SESSION_NEVER_EXPIRES;
    this.#marks = { ...DEFAULT_MARKS, ...options.pressure };
    this.#maxSessions = options.maxSessions ?? Number.POSITIVE_INFINITY;
    this.#maxSubscriptions = options.maxSubscriptionsPerSession ?? Number.POSITIVE_INFINITY;
    this.#retainedLimits = {
      maxCount: options.maxRetainedMessages ?? Number.POSITIVE_INFINITY,
      maxBytes: options.maxRetainedBytes ?? Number.POSITIVE_INFINITY,
    };
  }

  // The session, if `generation` is its current owner: the fence every connection call passes.
  #owned(clientId: string, generation: number): Session | undefined {
    const session = this.#sessions.get(clientId);
    return session?.ownedBy(generation) === true ? session : undefined;
  }

  #ctx(): DeliveryContext {
    return { now: this.#clock.now(), stats: this.stats, store: this.#store, overflow: this.#overflow };
  }

  /** How many sessions exist (connected or not). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** How many subscriptions exist (plain and shared). */
  get subscriptionCount(): number {
    return this.#subscriptions.size + this.#sharedMembers;
  }

  /** How many retained messages are held. */
  get retainedCount(): number {
    return this.#retained.size;
  }

  /** Bytes the retained messages hold (what `maxRetainedBytes` bounds). */
  get retainedBytes(): number {
    return this.#retained.bytes;
  }

  /**
   * Whether a CONNECT for `clientId` may claim a session: it has one already (resumed, or replaced
   * by a clean start), or there are fewer than `maxSessions`. Check it in the same synchronous turn
   * as {@link Router.connect}; refuse with CONNACK 0x97 (3.1.1: 3) when false.
   */
  admitsSession(clientId: string): boolean {
    return this.#sessions.has(clientId) || this.#sessions.size < this.#maxSessions;
  }

  /** The session of `clientId`, for inspection (tests, `$SYS`, admin). */
  session(clientId: string): Session | undefined {
    return this.#sessions.get(clientId);
  }

  /** A read-only view of `clientId`'s session, if it has one. */
  sessionView(clientId: string): SessionView | undefined {
    const session = this.#sessions.get(clientId);
    return session === undefined ? undefined : viewSession(session);
  }

  /**
   * Up to `limit` sessions (connected or not) as read-only views, in client id order (UTF-16
   * code units) after the client id `after`; `next` is set when more follow.
   */
  sessionViews(options: { readonly after?: string | undefined; readonly limit: number }): { readonly sessions: readonly SessionView[]; readonly next?: string } {
    const { after, limit } = options;
    const ids = [...this.#sessions.keys()].filter((id) => after === undefined || id > after).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const page = ids.slice(0, Math.max(0, limit));
    const sessions = page.flatMap((id) => {
      const session = this.#sessions.get(id);
      return session === undefined ? [] : [viewSession(session)];
    });
    const last = page.at(-1);
    return ids.length > page.length && last !== undefined ? { sessions, next: last } : { sessions };
  }

  /** `clientId`'s subscriptions as read-only views, in filter order; undefined without a session. */
  subscriptionViews(clientId: string): readonly SubscriptionView[] | undefined {
    const session = this.#sessions.get(clientId);
    if (session === undefined) return undefined;
    return [...session.subscriptions.values()].sort((a, b) => (a.filter < b.filter ? -1 : a.filter > b.filter ? 1 : 0)).map(viewSubscription);
  }

  /** Queued and in-flight deliveries summed over every session. */
  get queueTotals(): { readonly queued: number; readonly inflight: number } {
    let queued = 0;
    let inflight = 0;
    for (const session of this.#sessions.values()) {
      queued += session.queue.queuedCount;
      inflight += session.queue.inflightCount;
    }
    return { queued, inflight };
  }

  /**
   * Up to `limit` retained messages matching `filter` (a valid plain topic filter, no `$share/`)
   * as read-only copies, in topic order after the topic `after`; `next` is set when more follow.
   * Expired messages are skipped.
   */
  retainedPage(filter: string, options: { readonly after?: string | undefined; readonly limit: number }): RetainedPage {
    const limit = Math.max(0, options.limit);
    const found = this.#retained.page(filter, options.after, limit, this.#clock.now());
    const messages = found.slice(0, limit).map(viewRetained);
    const last = messages.at(-1);
    return found.length > limit && last !== undefined ? { messages, next: last.topic } : { messages };
  }

  /**
   * Ends the session of `clientId` on an operator's request, as expiry would: a pending will is
   * published first [MQTT-3.1.2-8], then subscriptions and queue are discarded (counted as
   * `session-discarded`) and the store deletes the session. Only a session nobody owns can be
   * ended: a connected client must be disconnected first, so the fence of its connection is
   * released by the router's own rules.
   */
  endSession(clientId: string): { readonly ok: true; readonly discarded: number } | { readonly ok: false; readonly reason: "unknown" | "connected" } {
    const session = this.#sessions.get(clientId);
    if (session === undefined) return { ok: false, reason: "unknown" };
    if (session.owner !== undefined) return { ok: false, reason: "connected" };
    const discarded = session.queue.count;
    this.#expire(session);
    return { ok: true, discarded };
  }

  /**
   * Deletes the retained message of `topic`, as a retained PUBLISH with an empty payload would
   * [MQTT-3.3.1-6], without routing anything to subscribers; the store records the deletion.
   * False when the topic held none.
   */
  clearRetained(topic: string): boolean {
    if (!this.#retained.delete(topic)) return false;
    this.#store.retainedChanged(topic, undefined);
    return true;
  }

  /**
   * Rebuilds state from a durable store after a restart, before any connection: sessions come
   * back disconnected (expiry counting from their stored disconnect time, or from now if they
   * were connected when the process died), their queues in sequence order with in-flight
   * deliveries keeping their packet ids for a DUP=1 resend first, their subscriptions and
   * pending wills; retained messages too. Generations continue above every stored one.
   */
  restore(snapshot: RouterSnapshot): void {
    const now = this.#clock.now();
    for (const message of snapshot.retained) this.#retained.set(message);
    for (const stored of snapshot.sessions) {
      const { record } = stored;
      this.#generations.observe(record.generation);
      const highest = stored.deliveries.at(-1)?.seq ?? -1;
      const session = new Session(record.clientId, record.expiryInterval, this.#limits, record.generation, this.#generations.allocate(), highest + 1);
      // Everything stored was admitted under the bounds once: a lowered limit must not lose it.
      session.queue.requeueFront(
        stored.deliveries.map((d) => ({ seq: d.seq, value: d.delivery, bytes: deliverySize(d.delivery) })),
        { allowOverLimit: true },
      );
      session.recomputeEarliestExpiry();
      session.queuedQos0 = stored.deliveries.filter((d) => d.delivery.qos === 0).length;
      for (const d of stored.deliveries) {
        if (d.assigned === undefined) continue;
        session.assigned.set(d.seq, { packetId: d.assigned.packetId, phase: d.assigned.phase });
        session.seqByPacketId.set(d.assigned.packetId, d.seq);
        session.packetIds.claim(d.assigned.packetId);
        if (d.assigned.phase === "pubrel") session.resendPubrels = true;
      }
      for (const id of stored.inboundQos2) session.inboundQos2.add(id);
      for (const subscription of stored.subscriptions) {
        session.subscriptions.set(subscription.filter, subscription);
        this.#index(session, subscription);
      }
      const disconnectedAt = record.disconnectedAt ?? now;
      session.disconnectedAt = disconnectedAt;
      this.#sessions.set(record.clientId, session);
      if (stored.will !== undefined) {
        session.will = { message: stored.will.message, delayMs: stored.will.delayMs, generation: record.generation };
        session.willDueAt = disconnectedAt + Math.min(stored.will.delayMs, session.expiryInterval * 1000);
        this.#timers.schedule(session.willDueAt, { kind: "will", session, token: record.generation });
      }
      if (session.expiryInterval !== SESSION_NEVER_EXPIRES) {
        this.#timers.schedule(disconnectedAt + session.expiryInterval * 1000, { kind: "expiry", session, token: record.generation });
      }
      if (record.disconnectedAt === undefined) {
        this.#store.sessionSaved({ ...record, disconnectedAt });
      }
    }
    // What fell due while the process was down (expired sessions, delayed wills) happens now,
    // before any client can connect and find a session that should be gone.
    this.tick();
  }

  /**
   * A connection claims `clientId`'s session (CONNECT). Synchronous: the takeover is complete when
   * this returns. A clean start discards any existing session (its queue epoch moves on, so plans
   * built for it are refused later); a resume keeps it, and the displaced connection's in-flight
   * deliveries go back to the front of the queue with their packet ids for a DUP=1 resend. The new
   * owner is *behind* until {@link Router.bind}: nothing is sent to it before then.
   */
  connect(request: ConnectRequest): ConnectOutcome {
    const ctx = this.#ctx();
    const generation = this.#generations.allocate();
    const expiry = Math.min(request.sessionExpiryInterval, this.#maxExpiry);
    let session = this.#sessions.get(request.clientId);
    let displaced: number | undefined;

    // A session that ends with its connection (3.1.1 CleanSession=1, MQTT 5 expiry 0) ends with a
    // takeover too, so it is never resumed: the new owner starts clean [MQTT-3.1.2-6], 3.1.2.11.
    const clean = request.cleanStart || (session?.owner !== undefined && session.expiryInterval === 0);
    if (session?.owner !== undefined) {
      displaced = session.generation;
      this.stats.takeovers += 1;
      session.owner = undefined;
      session.requeueInflight();
    }
    // The previous connection's will: a clean start ends the session, which publishes it; a
    // resume publishes it only if it had no delay (its connection just closed), and otherwise
    // cancels it, as the session reconnected within the delay [MQTT-3.1.3-9], [MQTT-3.1.2-8].
    if (session?.will !== undefined) {
      if (clean || (displaced !== undefined && session.will.delayMs === 0)) this.#fireWill(session);
      else this.#disarmWill(session);
    }

    const sessionPresent = session !== undefined && !clean;
    if (session !== undefined && clean) this.#endSession(session, ctx);
    if (session === undefined || clean) {
      // A fresh session's queue starts at a fresh generation, so no epoch a plan for an earlier
      // session of this id carried can ever match it.
      session = new Session(request.clientId, expiry, this.#limits, generation);
      this.#sessions.set(request.clientId, session);
    }
    session.expiryInterval = expiry;
    session.disconnectedAt = undefined;
    // What was queued under an earlier identity (or restored) is checked again as it goes out.
    session.readable = request.readable;
    session.readableFrom = session.queue.nextSeq;
    session.claim(generation, {
      sink: request.sink,
      receiveMaximum: request.receiveMaximum,
      protocolVersion: request.protocolVersion,
      bound: false,
    });
    this.#store.sessionSaved({ clientId: session.clientId, expiryInterval: expiry, generation, disconnectedAt: undefined });
    if (request.will !== undefined) {
      const { expiresAt: _ignored, ...message } = request.will.message;
      session.will = {
        message,
        delayMs: request.will.delaySeconds * 1000,
        generation,
        ...(request.will.expirySeconds === undefined ? {} : { expiryMs: request.will.expirySeconds * 1000 }),
      };
      session.willDueAt = undefined;
      this.#store.willChanged(session.clientId, { message: request.will.message, delayMs: session.will.delayMs });
    }
    return {
      generation,
      sessionPresent,
      sessionExpiryInterval: expiry,
      inboundQos2: [...session.inboundQos2],
      ...(displaced === undefined ? {} : { displaced }),
    };
  }

  /**
   * Holds deliveries to the connection `generation` back until it binds again: new copies wait on
   * the session queue, in order, behind what is queued. Used while an acknowledgement that must
   * come first (a SUBACK before the retained messages it brings) waits for the store's commit.
   * False for a stale generation.
   */
  unbind(clientId: string, generation: number): boolean {
    const owner = this.#owned(clientId, generation)?.owner;
    if (owner === undefined) return false;
    owner.bound = false;
    return true;
  }

  /**
   * The owner `generation` is ready (CONNACK sent after the session claim was committed): resend
   * in-flight deliveries with DUP=1, then the queue, in order. Returns false if stale.
   */
  bind(clientId: string, generation: number): boolean {
    const session = this.#owned(clientId, generation);
    if (session === undefined) return false;
    const owner = session.owner;
    if (owner === undefined) return false;
    owner.bound = true;
    pump(session, this.#ctx());
    return true;
  }

  /**
   * The connection `generation` closed. `publishWill` is false after a normal DISCONNECT (0x00)
   * [MQTT-3.14.4-3]; `sessionExpiryInterval` is the value from DISCONNECT, if it carried one.
   * A stale generation (a displaced connection) is refused: it cannot release the session or fire
   * a will.
   */
  disconnect(
    clientId: string,
    generation: number,
    options: { readonly publishWill: boolean; readonly sessionExpiryInterval?: number },
  ): { readonly ok: true } | Stale {
    const session = this.#owned(clientId, generation);
    if (session === undefined) return STALE;
    const now = this.#clock.now();
    session.owner = undefined;
    session.requeueInflight();
    if (options.sessionExpiryInterval !== undefined) session.expiryInterval = Math.min(options.sessionExpiryInterval, this.#maxExpiry);
    session.disconnectedAt = now;
    this.#store.sessionSaved({ clientId, expiryInterval: session.expiryInterval, generation, disconnectedAt: now });

    if (session.will !== undefined) {
      if (!options.publishWill) this.#disarmWill(session);
      else {
        // The will waits for its delay or the end of the session, whichever is first.
        const delayMs = Math.min(session.will.delayMs, session.expiryInterval * 1000);
        if (delayMs === 0) this.#fireWill(session);
        else {
          session.willDueAt = now + delayMs;
          this.#timers.schedule(session.willDueAt, { kind: "will", session, token: generation });
        }
      }
    }
    if (session.expiryInterval === 0) this.#expire(session);
    else if (session.expiryInterval !== SESSION_NEVER_EXPIRES) {
      this.#timers.schedule(now + session.expiryInterval * 1000, { kind: "expiry", session, token: generation });
    }
    return { ok: true };
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
    const session = this.#owned(clientId, generation);
    if (session === undefined) return STALE;
    const v5 = session.owner?.protocolVersion === 5;
    const ctx = this.#ctx();
    const granted: SubscribeGrant[] = [];
    for (const request of requests) {
      const existed = session.subscriptions.has(request.filter);
      if (!existed && session.subscriptions.size >= this.#maxSubscriptions) {
        this.stats.limitsExceeded["subscriptions-per-session"] += 1;
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
      this.#index(session, subscription);
      this.#store.subscriptionSaved(clientId, subscription);
      granted.push(request.qos);
      // Shared subscriptions never get retained messages on subscribe (spec 4.8.2).
      const sendRetained = !share && (request.retainHandling === 0 || (request.retainHandling === 1 && !existed));
      if (sendRetained) {
        const matches = this.#retained.match(request.filter, ctx.now, (topic) => {
          this.#store.retainedChanged(topic, undefined);
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
    }
    pump(session, ctx);
    return { ok: true, granted };
  }

  #index(session: Session, subscription: SessionSubscription): void {
    if (subscription.share === undefined) {
      this.#subscriptions.set(subscription.filter, session.clientId, { session, subscription });
      return;
    }
    let group = this.#shared.get(subscription.share.filter, subscription.share.group);
    if (group === undefined) {
      group = new SharedGroup();
      this.#shared.set(subscription.share.filter, subscription.share.group, group);
    }
    if (!group.members.has(session.clientId)) this.#sharedMembers += 1;
    group.members.set(session.clientId, { session, subscription });
  }

  #unindex(session: Session, subscription: SessionSubscription): void {
    if (subscription.share === undefined) {
      this.#subscriptions.delete(subscription.filter, session.clientId);
      return;
    }
    const group = this.#shared.get(subscription.share.filter, subscription.share.group);
    if (group === undefined) return;
    if (group.members.delete(session.clientId)) this.#sharedMembers -= 1;
    if (group.members.size === 0) this.#shared.delete(subscription.share.filter, subscription.share.group);
  }

  /** Removes subscriptions; returns per filter whether one existed (UNSUBACK 0x00 / 0x11). */
  unsubscribe(
    clientId: string,
    generation: number,
    filters: readonly string[],
  ): { readonly ok: true; readonly existed: readonly boolean[] } | Stale {
    const session = this.#owned(clientId, generation);
    if (session === undefined) return STALE;
    const existed = filters.map((filter) => {
      const subscription = session.subscriptions.get(filter);
      if (subscription === undefined) return false;
      session.subscriptions.delete(filter);
      this.#unindex(session, subscription);
      this.#store.subscriptionDeleted(clientId, filter);
      return true;
    });
    return { ok: true, existed };
  }

  /**
   * Plans a publish synchronously (see plan.ts). Execute it with {@link Router.execute}, now or
   * after an await; plans for sessions discarded in between are refused then.
   */
  plan(message: Message): DeliveryPlan {
    const plan = planDelivery(message, { subscriptions: this.#subscriptions, shared: this.#shared });
    this.#unexecuted.add(plan);
    return plan;
  }

  /**
   * Executes a plan: updates the retained store if the message is retained, and queues each copy
   * whose session is still at the planned epoch, sending at once where the owner has room.
   */
  execute(plan: DeliveryPlan): ExecuteOutcome {
    // A second execute, or a plan of another router (one from before an in-process restore), is
    // stale whole: it delivers, retains and stores nothing.
    if (!this.#unexecuted.delete(plan)) {
      const stale = plan.targets.length;
      this.stats.drop("stale-plan", stale);
      return { queued: 0, stale, dropped: 0, noMatchingSubscribers: stale === 0, refused: true, retainRefused: false, congested: NONE };
    }
    const ctx = this.#ctx();
    const message = plan.message;
    this.stats.published += 1;
    const retainRefused = message.retain && !this.#retain(message);
    if (plan.targets.length === 0) this.stats.unmatched += 1;
    let queued = 0;
    let stale = 0;
    let dropped = 0;
    let congested: string[] | undefined;
    for (const target of plan.targets) {
      const { session, delivery } = target;
      // Staleness first: a QoS 0 copy for a discarded session is stale, not an offline drop.
      if (session.ended || session.queue.epoch !== target.epoch) {
        this.stats.drop("stale-plan");
        stale += 1;
        continue;
      }
      if (delivery.qos === 0 && !session.connected && !this.#queueQos0Offline) {
        this.stats.drop("offline-qos0");
        dropped += 1;
        continue;
      }
      const outcome = enqueue(session, target.epoch, delivery, ctx);
      if (outcome === "queued") {
        queued += 1;
        pump(session, ctx);
        if (isCongested(session, this.#marks)) (congested ??= []).push(session.clientId);
      } else if (outcome === "stale") stale += 1;
      else dropped += 1;
    }
    return { queued, stale, dropped, noMatchingSubscribers: plan.targets.length === 0, refused: false, retainRefused, congested: congested ?? NONE };
  }

  // Stores a retained message (an empty payload deletes), unless a limit refuses it: then the
  // topic's older message goes too, as it is no longer the topic's last state. False if refused.
  #retain(message: Message): boolean {
    const refusal = message.payload.byteLength === 0 ? undefined : this.#retained.refusal(message, this.#retainedLimits);
    if (refusal !== undefined) {
      this.stats.limitsExceeded[refusal === "count" ? "retained-messages" : "retained-bytes"] += 1;
      if (this.#retained.delete(message.topic)) this.#store.retainedChanged(message.topic, undefined);
      return false;
    }
    this.#store.retainedChanged(message.topic, this.#retained.set(message));
    return true;
  }

  /** Plans and executes at once. */
  publish(message: Message): ExecuteOutcome {
    return this.execute(this.plan(message));
  }

  /**
   * True while `clientId`'s session is online and its queue is above the low-water mark: a
   * publisher slowed for it (see {@link ExecuteOutcome.congested}) keeps waiting.
   */
  backlogged(clientId: string): boolean {
    const session = this.#sessions.get(clientId);
    return session !== undefined && isBacklogged(session, this.#marks);
  }

  /**
   * The client finished a delivery: PUBACK (QoS 1), PUBCOMP (QoS 2), or a PUBACK/PUBREC with an
   * error reason code, which also ends the flow [MQTT-4.4.0-2]. Frees a Receive Maximum slot.
   */
  acknowledge(clientId: string, generation: number, packetId: number): { readonly ok: true; readonly known: boolean } | Stale {
    const session = this.#owned(clientId, generation);
    if (session === undefined) return STALE;
    return { ok: true, known: complete(session, packetId, this.#ctx()) };
  }

  /** The client sent PUBREC (success) for a QoS 2 delivery: the connection sends PUBREL next. */
  pubrec(clientId: string, generation: number, packetId: number): { readonly ok: true; readonly known: boolean } | Stale {
    const session = this.#owned(clientId, generation);
    if (session === undefined) return STALE;
    return { ok: true, known: received(session, packetId, this.#ctx()) };
  }

  /**
   * Records an inbound QoS 2 packet id as received (`true`, on its first PUBLISH) or released
   * (`false`, on PUBREL); it is session state that survives reconnects [MQTT-4.3.3-*].
   */
  inboundQos2(clientId: string, generation: number, packetId: number, received: boolean): { readonly ok: true } | Stale {
    const session = this.#owned(clientId, generation);
    if (session === undefined) return STALE;
    if (received) session.inboundQos2.add(packetId);
    else session.inboundQos2.delete(packetId);
    this.#store.inboundQos2Changed(clientId, packetId, received);
    return { ok: true };
  }

  /** Runs what is due at the clock's current time: delayed wills and session expiry. */
  tick(): RouterEvent[] {
    const now = this.#clock.now();
    const events: RouterEvent[] = [];
    for (const timer of this.#timers.due(now)) {
      const { session } = timer;
      // Lazy cancellation: a timer counts only if its session is still the one it was set for,
      // still disconnected since the same connection left.
      if (session.ended || session.owner !== undefined || this.#sessions.get(session.clientId) !== session) continue;
      if (timer.kind === "will") {
        if (session.will?.generation === timer.token && session.willDueAt !== undefined && session.willDueAt <= now) {
          const topic = session.will.message.topic;
          this.#fireWill(session);
          events.push({ kind: "will-published", clientId: session.clientId, topic });
        }
      } else if (session.disconnectedAt !== undefined && session.disconnectedAt + session.expiryInterval * 1000 <= now) {
        if (session.will !== undefined) {
          events.push({ kind: "will-published", clientId: session.clientId, topic: session.will.message.topic });
        }
        const discarded = session.queue.count;
        this.#expire(session);
        this.stats.sessionsExpired += 1;
        events.push({ kind: "session-expired", clientId: session.clientId, discarded });
      }
    }
    // Expired messages leave disconnected sessions' queues too, so an offline backlog of
    // expired messages does not hold memory [MQTT-3.3.2-5].
    const ctx = this.#ctx();
    // Only queues that may hold an expired message are scanned, not every queue every tick.
    for (const session of this.#sessions.values()) {
      if (session.owner !== undefined || session.earliestExpiry === undefined || session.earliestExpiry > now) continue;
      const removed = session.queue.removeWhere((e) => !session.assigned.has(e.seq) && e.value.message.expiresAt !== undefined && e.value.message.expiresAt <= now);
      for (const entry of removed) this.#store.deliveryRemoved(session.clientId, entry.seq);
      if (removed.length > 0) ctx.stats.drop("expired", removed.length);
      session.recomputeEarliestExpiry();
    }
    return events;
  }

  #fireWill(session: Session): void {
    const will = session.will;
    if (will === undefined) return;
    session.will = undefined;
    session.willDueAt = undefined;
    this.#store.willChanged(session.clientId, undefined);
    this.stats.willsPublished += 1;
    const now = this.#clock.now();
    this.publish(will.expiryMs === undefined ? will.message : { ...will.message, expiresAt: now + will.expiryMs });
  }

  #disarmWill(session: Session): void {
    if (session.will === undefined) return;
    session.will = undefined;
    session.willDueAt = undefined;
    this.#store.willChanged(session.clientId, undefined);
  }

  // The session ends with its connection gone: a pending will goes out first [MQTT-3.1.2-8].
  #expire(session: Session): void {
    this.#fireWill(session);
    this.#endSession(session, this.#ctx());
  }

  #endSession(session: Session, ctx: DeliveryContext): void {
    for (const subscription of session.subscriptions.values()) this.#unindex(session, subscription);
    const discarded = session.discard();
    session.ended = true;
    if (discarded > 0) ctx.stats.drop("session-discarded", discarded);
    if (this.#sessions.get(session.clientId) === session) this.#sessions.delete(session.clientId);
    this.#store.sessionDeleted(session.clientId);
  }
}
