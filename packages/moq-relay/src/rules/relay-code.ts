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
