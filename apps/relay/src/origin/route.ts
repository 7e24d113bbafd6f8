import type { Track } from "@handoff/moq-resume";

/**
 * Something that can serve a broadcast: a session whose peer announced it. The origin asks it
 * for one upstream subscription per track and shares that copy with every downstream reader.
 */
export interface RouteSource {
  /** Unique per source (a session id), for split horizon and logs. */
  readonly id: number;
  /**
   * Subscribes to `track` of `path` from the peer. The returned track is filled as groups
   * arrive and ends when the peer ends the subscription; `cancel` ends it from our side.
   * Undefined when the source cannot subscribe now (closing, or over its limits).
   */
  subscribeUpstream(path: string, track: string, priority: number): UpstreamTrack | undefined;
}

/** One upstream subscription: the shared copy and how to end it. */
export interface UpstreamTrack {
  /** The copy the peer fills. */
  readonly track: Track;
  /** Ends the subscription (the last downstream reader left). */
  cancel(): void;
}

/** One way to reach a broadcast. */
export interface Route {
  readonly source: RouteSource;
  /** Hop ids the announce travelled through, publisher first (empty when unknown). */
  readonly hops: readonly number[];
  /** Link cost; lower wins. */
  readonly cost: number;
  /** Arrival order, so a fresh announce beats a stale one on a tie. */
  readonly order: number;
}

/**
 * Route preference: lowest cost, then fewest hops, then the most recent. The reference also
 * breaks ties by a hash of the hop ids; recency alone is deterministic enough for one relay.
 */
export function compareRoutes(a: Route, b: Route): number {
  if (a.cost !== b.cost) return a.cost - b.cost;
  if (a.hops.length !== b.hops.length) return a.hops.length - b.hops.length;
  return b.order - a.order;
}

/** The best route that does not lead back to `exclude` (split horizon), if any. */
export function bestRoute(routes: readonly Route[], exclude: RouteSource | undefined): Route | undefined {
  let best: Route | undefined;
  for (const route of routes) {
    if (route.source === exclude) continue;
    if (best === undefined || compareRoutes(route, best) < 0) best = route;
  }
  return best;
}
