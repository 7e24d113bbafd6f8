/** Per-session bounds, so one peer cannot take the relay's memory or streams. */
export interface SessionLimits {
  /** Live SUBSCRIBE streams the peer may hold open (downstream). */
  readonly maxSubscriptions: number;
  /** Live ANNOUNCE_REQUEST streams the peer may hold open. */
  readonly maxAnnounceRequests: number;
  /** Broadcasts the peer may announce. */
  readonly maxAnnounced: number;
  /** Upstream subscriptions the relay may hold on this peer. */
  readonly maxUpstream: number;
  /**
   * Group streams being written to the peer at once. Past it the lowest-priority, oldest group
   * is reset (skipped): a slow subscriber loses groups instead of growing the relay's memory.
   */
  readonly maxOutboundGroups: number;
  /** Groups kept per upstream track copy (the fan-out cache). */
  readonly trackCacheGroups: number;
  /**
   * Payload bytes one inbound group may carry. Receive credit is released on arrival, so without
   * this a publisher could grow one cached group without bound; past it the group is aborted.
   */
  readonly maxGroupBytes: number;
  /**
   * Control bytes (announces, subscribe replies, PROBE reports...) the session may hold for a peer
   * that does not read them, beyond what the framing buffers. Past it the session is closed
   * with {@link RelayCode.TooMany}: a message is never cut short.
   */
  readonly maxControlBytes: number;
}

/** Defaults, generous for a browser client and bounded for a hostile one. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSubscriptions: 1024,
  maxAnnounceRequests: 64,
  maxAnnounced: 1024,
  maxUpstream: 1024,
  maxOutboundGroups: 256,
  trackCacheGroups: 32,
  maxGroupBytes: 16 * 1024 * 1024,
  maxControlBytes: 1024 * 1024,
};

/** Application error codes the relay puts on resets and closes (its own numbering, documented in the README). */
export const RelayCode = {
  /** Ended on purpose (unsubscribe, shutdown). */
  Cancel: 0,
  /** The peer's token does not allow this path. */
  Unauthorized: 401,
  /** The session's token expired. */
  Expired: 402,
  /** No route to the broadcast. */
  NotFound: 404,
  /** A per-session limit was reached. */
  TooMany: 429,
  /** The group was gone (evicted from the cache or aborted upstream) before it could be sent. */
  Lost: 410,
  /**
   * The group went downstream with frames missing (no copy held them, or the rest was lost): the
   * stream is reset rather than finished, so the peer never takes it for a whole group.
   */
  Incomplete: 422,
  /** The group was skipped because the subscriber fell behind. */
  Skipped: 430,
  /** The publisher's group went past `maxGroupBytes` and was aborted. */
  TooLarge: 413,
  /** The SETUP offered no version the relay speaks. */
  Version: 9,
  /** A path with more parts than the wire carries (the connection's root, a SETUP Path). */
  PathTooLong: 414,
  /** The relay failed handling this connection (a bug, logged and counted); only it is closed. */
  Internal: 500,
  /** The relay is shutting down. */
  Shutdown: 503,
  /** The peer broke a protocol rule (a second GOAWAY); the reference's code. */
  ProtocolViolation: 15,
  /** The session moved to another relay (GOAWAY handover done, or its deadline passed). */
  GoingAway: 0x10,
} as const;
