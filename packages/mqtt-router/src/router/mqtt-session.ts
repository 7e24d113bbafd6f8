/**
 * One client's session: its subscriptions, its queue with in-flight lane, the packet ids of its
 * in-flight deliveries, its inbound QoS 2 state and its will. The router owns sessions; a
 * connection is only ever the session's current *owner*, identified by its generation.
 * @module
 */
import { Fence, SeqQueue, type QueueLimits } from "@handoff/seqlog";
import type { ProtocolVersion } from "../codec/packet.js";
import type { Delivery, Message } from "./message.js";
import { PacketIds } from "./packet-ids.js";
import type { DeliverySink } from "./sink.js";
import type { SessionSubscription } from "./subscription.js";

/** Where an in-flight QoS 1/2 delivery stands. */
export interface Assigned {
  /** The id the PUBLISH went out with; a resend reuses it. */
  readonly packetId: number;
  /** "publish": PUBLISH sent, awaiting PUBACK/PUBREC; "pubrel": PUBREC received, PUBREL sent. */
  phase: "publish" | "pubrel";
}

/** The connection currently owning a session (its generation is the session's fence). */
export interface Owner {
  /** Where the router sends this owner's deliveries. */
  readonly sink: DeliverySink;
  /** The client's Receive Maximum: the most unacknowledged QoS 1/2 deliveries it accepts. */
  readonly receiveMaximum: number;
  /** The owner's protocol level: subscribe options beyond QoS apply on MQTT 5 only. */
  readonly protocolVersion: ProtocolVersion;
  /**
   * False between CONNECT and the app's `bind` (after CONNACK, once the session claim is
   * committed): the session is "behind" and nothing is sent, so nothing overtakes resends.
   */
  bound: boolean;
}

/** A will armed by one connection. */
export interface ArmedWill {
  /** Published when the will fires. */
  readonly message: Message;
  /** Will Delay Interval in ms. */
  readonly delayMs: number;
  /** Message Expiry Interval in ms, counted from when the will is published. */
  readonly expiryMs?: number;
  /** The generation of the connection that armed it: only that one may fire or cancel it. */
  readonly generation: number;
}

/** The read side of a session's queue. */
export type ReadonlySessionQueue = Pick<
  SeqQueue<Delivery>,
  "count" | "queuedCount" | "inflightCount" | "bytes" | "epoch" | "nextSeq" | "limits" | "peek" | "queued" | "inflight"
>;

/**
 * A session as readers outside the router see it (tests, `$SYS`, logs): live, but nothing in it
 * can change the session. Only the router's modules change sessions. For a frozen copy taken at
 * one instant, see `Router.sessionView`.
 */
export interface ReadonlySession {
  /** The session's key; one session per client id. */
  readonly clientId: string;
  /** Seconds; 0xFFFFFFFF (`SESSION_NEVER_EXPIRES`) for never. */
  readonly expiryInterval: number;
  /** The generation of the connection that claimed the session last (owning it or not). */
  readonly generation: number;
  /** By filter as subscribed (`$share/` prefix included). */
  readonly subscriptions: ReadonlyMap<string, SessionSubscription>;
  /** Deliveries waiting or in flight, in seq order. */
  readonly queue: ReadonlySessionQueue;
  /** Deliveries that have a packet id: in flight, or requeued for a DUP=1 resend. By queue seq. */
  readonly assigned: ReadonlyMap<number, Readonly<Assigned>>;
  /** Queue seq by packet id. */
  readonly seqByPacketId: ReadonlyMap<number, number>;
  /** Inbound QoS 2 packet ids received and not yet released by PUBREL. */
  readonly inboundQos2: ReadonlySet<number>;
  /** The connection owning the session now. */
  readonly owner: Readonly<Owner> | undefined;
  /** The will of the current or last connection, until fired or cancelled. */
  readonly will: ArmedWill | undefined;
  /** When the will fires (clock ms), once its connection is gone and a delay was asked for. */
  readonly willDueAt: number | undefined;
  /** When the last owner went away (clock ms); undefined while connected. */
  readonly disconnectedAt: number | undefined;
  /** Set once the session is discarded. */
  readonly ended: boolean;
  /** True while a connection owns the session (bound or not). */
  readonly connected: boolean;
  /** True when new work goes to the queue tail: the owner has not bound yet, or work is waiting. */
  readonly behind: boolean;
  /** True when `generation` is the current owner's. */
  ownedBy(generation: number): boolean;
}

/** A client's session state, changed only by the router's modules (others get a {@link ReadonlySession}). */
export class Session implements ReadonlySession {
  readonly clientId: string;
  /** Seconds; 0xFFFFFFFF (`SESSION_NEVER_EXPIRES`) for never. */
  expiryInterval: number;
  readonly subscriptions = new Map<string, SessionSubscription>();
  readonly queue: SeqQueue<Delivery>;
  // Made on first use: an idle subscriber never needs them (memory per connected client).
  #assigned: Map<number, Assigned> | undefined;
  #seqByPacketId: Map<number, number> | undefined;
  #inboundQos2: Set<number> | undefined;
  readonly packetIds = new PacketIds();
  /** Deliveries that have a packet id: in flight, or requeued for a DUP=1 resend. By queue seq. */
  get assigned(): Map<number, Assigned> {
    return (this.#assigned ??= new Map());
  }
  /** Queue seq by packet id, for acks. */
  get seqByPacketId(): Map<number, number> {
    return (this.#seqByPacketId ??= new Map());
  }
  /**
   * Whether the session outlives its connection (a Session Expiry Interval above 0). Only such a
   * session's queue and QoS 2 state go to the store: one that ends with its connection ends with
   * the process too, so a restart or an adopting node could never resume it, and its interval can
   * never be raised from 0 [MQTT-3.14.2-2] (nor is it ever resumed, see `connect`).
   */
  get durable(): boolean {
    return this.expiryInterval !== 0;
  }
  /** Inbound QoS 2 packet ids received and not yet released by PUBREL. */
  get inboundQos2(): Set<number> {
    return (this.#inboundQos2 ??= new Set());
  }
  /** The inbound QoS 2 packet ids in a new list, without making the set for a session that has none. */
  inboundQos2Ids(): number[] {
    return this.#inboundQos2 === undefined ? [] : [...this.#inboundQos2];
  }
  /** The connection owning the session now; set by {@link Session.claim}, cleared when it goes. */
  owner: Owner | undefined;
  /** The generation of the connection that claimed the session last: every older one is stale. */
  readonly #fence: Fence;
  /** The will of the current or last connection, until fired or cancelled. */
  will: ArmedWill | undefined;
  /** When the will fires (clock ms), once its connection is gone and a delay was asked for. */
  willDueAt: number | undefined;
  /** When the last owner went away (clock ms); undefined while connected. */
  disconnectedAt: number | undefined;
  /** Set once the session is discarded: nothing may land in it any more. */
  ended = false;
  /**
   * Whether the owner may read a topic (the app's ACL at delivery), from the last CONNECT; checked
   * when a copy is planned or a retained message queued, so a denied topic never reaches a
   * subscription whose filter merely overlaps it. Undefined: everything is readable.
   */
  readable: ((topic: string) => boolean) | undefined;
  /** Copies queued below this seq were not checked by {@link Session.readable}: the pump checks them. */
  readableFrom = 0;
  /**
   * Set when in-flight deliveries went back to the queue (a reconnect, a restore): some may be
   * PUBRELs, which the next pump resends ahead of the Receive Maximum [MQTT-3.3.4-10].
   */
  resendPubrels = false;
  /**
   * No queued delivery expires before this (clock ms); undefined: none has an expiry. It may be
   * early (a delivery since sent or dropped), never late, so the expiry sweep can skip the queue.
   */
  earliestExpiry: number | undefined;
  /**
   * At least as many QoS 0 copies as are queued (it may be high, never low): at a full queue the
   * search for a QoS 0 copy to evict is skipped while it is 0, instead of scanning every entry.
   */
  queuedQos0 = 0;

  /**
   * @param generation the generation of the connection creating the session (or, restored, of the
   *   one that claimed it last)
   * @param epoch the queue's first epoch (a fresh generation, so no older plan can match it)
   */
  constructor(clientId: string, expiryInterval: number, limits: QueueLimits, generation: number, epoch = generation, nextSeq = 0) {
    this.clientId = clientId;
    this.expiryInterval = expiryInterval;
    this.#fence = new Fence(generation);
    this.queue = new SeqQueue<Delivery>({ limits, epoch, nextSeq });
  }

  /** The generation of the connection that claimed the session last (owning it or not). */
  get generation(): number {
    return this.#fence.current;
  }

  /**
   * Hands the session to the connection `generation`: the session's own first generation, or a
   * newer one, which moves the fence on so every older connection is refused from now on.
   */
  claim(generation: number, owner: Owner): void {
    if (!this.#fence.admits(generation)) this.#fence.advance(generation);
    this.owner = owner;
  }

  /** Notes a queued delivery's expiry for the sweep. */
  noteExpiry(expiresAt: number | undefined): void {
    if (expiresAt !== undefined && (this.earliestExpiry === undefined || expiresAt < this.earliestExpiry)) this.earliestExpiry = expiresAt;
  }

  /** Recomputes {@link Session.earliestExpiry} from what is queued now. */
  recomputeEarliestExpiry(): void {
    this.earliestExpiry = undefined;
    for (const entry of this.queue.queued()) this.noteExpiry(entry.value.message.expiresAt);
  }

  /** Puts the in-flight deliveries back in the queue for a resend to the next owner. */
  requeueInflight(): void {
    if (this.queue.requeueInflight() > 0) this.resendPubrels = true;
  }

  /** True while a connection owns the session (bound or not). */
  get connected(): boolean {
    return this.owner !== undefined;
  }

  /**
   * True when new work must go to the queue tail rather than straight out: the owner has not
   * bound yet, or older work is still waiting. (Work always goes through the queue; this is for
   * callers that prefer a member that is not behind, like shared subscriptions.)
   */
  get behind(): boolean {
    return this.owner === undefined || !this.owner.bound || this.queue.queuedCount > 0;
  }

  /** True when `generation` is the current owner's: it claimed the session last and is still attached. */
  ownedBy(generation: number): boolean {
    return this.owner !== undefined && this.#fence.admits(generation);
  }

  /**
   * Discards all state (clean start, or expiry): the queue is cleared, which bumps its epoch so a
   * plan built before now can never land. Returns the discarded deliveries' count.
   */
  discard(): number {
    const { dropped } = this.queue.clear();
    this.earliestExpiry = undefined;
    this.queuedQos0 = 0;
    this.subscriptions.clear();
    this.#assigned?.clear();
    this.#seqByPacketId?.clear();
    this.packetIds.clear();
    this.#inboundQos2?.clear();
    return dropped.length;
  }
}
