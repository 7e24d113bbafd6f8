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

