/**
 * What a {@link Router} is configured with, and the settings resolved from it (defaults filled in).
 * @module
 */
import type { Clock, GenerationAllocator, QueueLimits } from "@handoff/seqlog";
import { SESSION_NEVER_EXPIRES } from "../codec/packet.js";
import type { OverflowPolicy } from "./delivery.js";
import type { Message } from "./message.js";
import { DEFAULT_MARKS, type PressureMarks } from "./pressure.js";
import type { RetainedLimits } from "./retained-store.js";
import type { RouterStore } from "./store.js";

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
  /**
   * Told of every message the router accepted, once, right after its plan executed (its copies
   * queued, its retained state stored): a client's PUBLISH, a will, the app's own. Not told of a
   * refused (stale or repeated) plan. Called synchronously inside {@link Router.publish} and
   * {@link Router.execute}; it must not throw.
   */
  readonly onPublished?: (message: Message) => void;
  /**
   * For routers that share `$share` groups with others (a cluster's nodes, see
   * `ClusterShares`): asked for each shared group a message matches here, before a member is
   * picked; false leaves the group's one copy to another router. Absent: every matching group
   * gets its copy here. Called synchronously while planning; it must not throw.
   */
  readonly sharedCopy?: (message: Message, group: string, filter: string) => boolean;
  /**
   * Told when a shared group gets its first member here (`present` true) or loses its last
   * (false), also as sessions are restored, adopted or forgotten: where a group has members is
   * what another router needs to leave copies to this one.
   */
  readonly onSharedGroup?: (group: string, filter: string, present: boolean) => void;
}

/** The bounds and policies in force, defaults filled in. */
export interface RouterSettings {
  readonly queueLimits: QueueLimits;
  readonly overflow: OverflowPolicy;
  readonly queueQos0Offline: boolean;
  readonly maxSessionExpiry: number;
  readonly marks: PressureMarks;
  readonly maxSessions: number;
  readonly maxSubscriptionsPerSession: number;
  readonly retainedLimits: RetainedLimits;
  readonly onPublished: ((message: Message) => void) | undefined;
  readonly sharedCopy: ((message: Message, group: string, filter: string) => boolean) | undefined;
}

const DEFAULT_LIMITS: QueueLimits = { maxCount: 10_000, maxBytes: 64 * 1024 * 1024 };

/** Fills in the defaults of `options`. */
export function resolveSettings(options: RouterOptions): RouterSettings {
  return {
    queueLimits: { ...DEFAULT_LIMITS, ...options.queueLimits },
    overflow: options.overflow ?? "drop-oldest",
    queueQos0Offline: options.queueQos0Offline ?? false,
    maxSessionExpiry: options.maxSessionExpiry ?? SESSION_NEVER_EXPIRES,
    marks: { ...DEFAULT_MARKS, ...options.pressure },
    maxSessions: options.maxSessions ?? Number.POSITIVE_INFINITY,
    maxSubscriptionsPerSession: options.maxSubscriptionsPerSession ?? Number.POSITIVE_INFINITY,
    retainedLimits: {
      maxCount: options.maxRetainedMessages ?? Number.POSITIVE_INFINITY,
      maxBytes: options.maxRetainedBytes ?? Number.POSITIVE_INFINITY,
    },
    onPublished: options.onPublished,
    sharedCopy: options.sharedCopy,
  };
}
