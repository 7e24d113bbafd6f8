import type { SessionLimits } from "@handoff/moq-relay";

/** Bounds of the whole relay process (beside each session's own). */
export interface ProcessLimits {
  /**
   * Sessions open at once (links this relay dialed included). An incoming connection past it is
   * refused: a WebSocket upgrade with 503, a raw-TCP connection with a qmux close (429).
   */
  readonly maxSessions: number;
  /** Payload bytes one upstream track copy may cache; past it its oldest groups are evicted. */
  readonly maxTrackBytes: number;
  /**
   * Bytes the relay may hold from its peers: cached payloads plus frames and messages still being
   * received. Past it the relay's oldest cached groups are evicted, and when only partial data is
   * left the session holding most of it is closed with 429.
   */
  readonly maxRelayBytes: number;
}

/** Every limit a relay takes: the process's and the per-session ones. */
export type RelayLimits = ProcessLimits & SessionLimits;

/** Defaults: a few thousand viewers and a few hundred tracks fit well inside them. */
export const DEFAULT_PROCESS_LIMITS: ProcessLimits = {
  maxSessions: 10_000,
  maxTrackBytes: 64 * 1024 * 1024,
  maxRelayBytes: 1024 * 1024 * 1024,
};
