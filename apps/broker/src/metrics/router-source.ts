/**
 * What the metrics read from the router at scrape time. Structural, so the app passes the
 * `@handoff/mqtt-router` Router as is and tests pass a plain object.
 * @module
 */

/** The router's cumulative counters (`router.stats`). */
export interface RouterStatsSource {
  /** Messages routed (publishes and wills). */
  readonly published: number;
  /** Copies handed to connections (resends included). */
  readonly sent: number;
  /** Copies put on a queue. */
  readonly queued: number;
  /** Messages that matched no subscription. */
  readonly unmatched: number;
  /** Dropped copies by reason (`queue-full`, `expired`, `stale-plan`, ...). */
  readonly dropped: Readonly<Record<string, number>>;
  readonly willsPublished: number;
  readonly sessionsExpired: number;
  readonly takeovers: number;
}

/** The router as the metrics see it. */
export interface RouterSource {
  readonly stats: RouterStatsSource;
  readonly sessionCount: number;
  readonly subscriptionCount: number;
  readonly retainedCount: number;
}
