/**
 * Counters the router keeps; the app exports them as metrics and `$SYS` topics. Every message the
 * router does not deliver is counted under a reason: there are no silent drops.
 * @module
 */

/** Why a delivery was dropped. */
export type DropReason =
  /** A QoS 0 copy refused by a full queue. */
  | "queue-full-qos0"
  /** A QoS 1/2 copy refused by a full queue under the drop-new policy. */
  | "queue-full"
  /** A queued copy evicted to make room (oldest QoS 0 first, then oldest under drop-oldest). */
  | "evicted"
  /** The message expired before it could be sent [MQTT-3.3.2-5]. */
  | "expired"
  /** A plan built for a session that was since discarded (clean start, expiry): seed 000. */
  | "stale-plan"
  /** A QoS 0 copy for a disconnected session, which does not queue QoS 0. */
  | "offline-qos0"
  /** The connection refused it (larger than the client's Maximum Packet Size). */
  | "refused-by-connection"
  /** Discarded with the session (clean start or expiry). */
  | "session-discarded"
  /** Queued before the owner's read check applied (offline, restored) and denied by it at sending. */
  | "not-readable";

/** A router limit that refused something (the limits are `RouterOptions`). */
export type RouterLimit =
  /** A new subscription past `maxSubscriptionsPerSession` (SUBACK 0x97). */
  | "subscriptions-per-session"
  /** A retained message for a new topic past `maxRetainedMessages` (delivered, not stored). */
  | "retained-messages"
  /** A retained message past `maxRetainedBytes` (delivered, not stored). */
  | "retained-bytes";

/** The router's counters. */
export class RouterStats {
  /** Messages routed (publishes and wills). */
  published = 0;
  /** Copies handed to connections (resends included). */
  sent = 0;
  /** Copies put on a queue. */
  queued = 0;
  /** Messages that matched no subscription. */
  unmatched = 0;
  /** Dropped copies by reason. */
  readonly dropped: Record<DropReason, number> = {
    "queue-full-qos0": 0,
    "queue-full": 0,
    evicted: 0,
    expired: 0,
    "stale-plan": 0,
    "offline-qos0": 0,
    "refused-by-connection": 0,
    "session-discarded": 0,
    "not-readable": 0,
  };
  /** Wills published. */
  willsPublished = 0;
  /** Sessions ended by expiry. */
  sessionsExpired = 0;
  /** Connections displaced by a takeover. */
  takeovers = 0;
  /** Refusals by limit: nothing past a limit is silent. */
  readonly limitsExceeded: Record<RouterLimit, number> = {
    "subscriptions-per-session": 0,
    "retained-messages": 0,
    "retained-bytes": 0,
  };

  /** Counts `n` drops for `reason`. */
  drop(reason: DropReason, n = 1): void {
    this.dropped[reason] += n;
  }

  /** All drops. */
  get droppedTotal(): number {
    return Object.values(this.dropped).reduce((sum, n) => sum + n, 0);
  }
}
