import type { Boundary, Track } from "@handoff/moq-resume";
import type { TrackInfoAnswer } from "./track-infos.js";

/**
 * Where a new upstream copy must start: called with the copy once the source is sure it can
 * subscribe, before the SUBSCRIBE is written. The origin splices the copy into the resumed track
 * and answers the boundary (undefined: live edge, for the first copy).
 */
export type PlaceCopy = (copy: Track) => Boundary | undefined;

/**
 * Something that can serve a broadcast: a session whose peer announced it. The origin asks it
 * for one upstream subscription per track and shares that copy with every downstream reader.
 */
export interface RouteSource {
  /** Unique per source (a session id), for split horizon and logs. */
  readonly id: number;
  /**
   * Subscribes to `track` of `path` from the peer, starting where `place` says. The returned
   * copy is filled as groups arrive and ends when the peer ends the subscription; `cancel` ends
   * it from our side. Undefined when the source cannot subscribe now (closing, over its limits);
   * `place` is then not called.
   */
  subscribeUpstream(path: string, track: string, priority: number, place: PlaceCopy): UpstreamTrack | undefined;
  /**
   * Asks the peer for the info of `track` of `path` (lite-05+: a TRACK stream; older versions
   * advertise none, and answer at once with the info such a publisher gets). `answer` is called
   * once, possibly before this returns. False when the source cannot ask now (closing, out of
   * streams); `answer` is then never called. A source without it is never asked.
   */
  askTrackInfo?(path: string, track: string, answer: TrackInfoAnswer): boolean;
}

/** One upstream subscription: the copy and how to end it. */
export interface UpstreamTrack {
  /** The copy the peer fills. */
  readonly track: Track;
  /**
   * The first group the peer said it sends (lite-05+ SUBSCRIBE_START), once it said so; undefined
   * before, and on versions without it.
   */
  readonly startedAt?: number | undefined;
  /** Ends the subscription (the last downstream reader left, or the track moved away). */
  cancel(): void;
  /**
   * Asks the peer to stop after group `last` (inclusive): the track moved to another route and
   * this copy only has to finish what it owes. Falls back to {@link cancel} where the version
   * cannot update a subscription.
   */
  cap(last: number): void;
}

/** One way to reach a broadcast. */
export interface Route {
  /** The session that announced the broadcast. */
  readonly source: RouteSource;
  /** Hop ids the announce travelled through, publisher first (empty when unknown). */
  readonly hops: readonly number[];
  /** Link cost; lower wins. */
  readonly cost: number;
  /** Arrival order, so a fresh announce beats a stale one on a tie. */
  readonly order: number;
  /** The source said GOAWAY: the route sorts last but still serves if it is the only one. */
  readonly draining?: boolean;
}

/**
 * Route preference: a draining route last, then lowest cost, then fewest hops, then the most
 * recent (so a reconnect of the same peer beats its stale route). The reference also breaks ties
 * by a hash of the hop ids; recency alone is deterministic enough for one relay.
 */
export function compareRoutes(a: Route, b: Route): number {
  const drainA = a.draining === true ? 1 : 0;
  const drainB = b.draining === true ? 1 : 0;
  if (drainA !== drainB) return drainA - drainB;
  if (a.cost !== b.cost) return a.cost - b.cost;
  if (a.hops.length !== b.hops.length) return a.hops.length - b.hops.length;
  return b.order - a.order;
}

/** The best route that does not lead back to `exclude` (split horizon), if any. */
export function bestRoute(routes: readonly Route[], exclude: RouteSource | undefined): Route | undefined {
  return bestRouteAvoiding(routes, (source) => source === exclude);
}

/** The best route whose source `avoid` does not reject, if any. */
export function bestRouteAvoiding(routes: readonly Route[], avoid: (source: RouteSource) => boolean): Route | undefined {
  let best: Route | undefined;
  for (const route of routes) {
    if (avoid(route.source)) continue;
    if (best === undefined || compareRoutes(route, best) < 0) best = route;
  }
  return best;
}
