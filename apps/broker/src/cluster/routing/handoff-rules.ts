/**
 * The decisions of a session's move between nodes, apart from Redis and the router, so that the
 * product (handoff.ts, cluster-routing.ts, the claim's script in take-session.ts) and the
 * cross-node model test (handoff.model.property.test.ts) apply the same rules:
 * - the route base a claim records: what the session's stored queue holds of the routes stream;
 * - where the new owner's reader must stand before it replays, and which entries it replays;
 * - below which id the stream may be trimmed: every node's cursor and every route base still
 *   waiting for its replay hold it (a replay reads from its base's cursor, which other nodes'
 *   cursors may have passed long ago).
 * @module
 */
import type { OriginTag } from "./route-entry.js";
import { compareIds, earliestId, laterId } from "./stream-id.js";

/**
 * What a moved session's stored queue holds of the routes stream: every entry up to `cursor` that
 * node `node` routed from others, and every entry up to `tip` that `node` appended itself (its
 * own publishes were routed there when they were accepted).
 */
export interface RouteBase {
  readonly node: string;
  readonly cursor: string;
  readonly tip: string;
}

/**
 * The route base a claim leaves for a stored session (the claim's script applies the same rule in
 * Lua; take-session's test checks both agree): a base not yet settled stays (the session's queue
 * still holds only what that node routed); otherwise the previous owner's committed cursor and
 * the stream's tip at the claim; none when no node held the session.
 */
export function routeBaseOnClaim(existing: RouteBase | undefined, previousNode: string | undefined, previousCursor: string | undefined, tip: string): RouteBase | undefined {
  if (existing !== undefined) return existing;
  if (previousNode === undefined) return undefined;
  return { node: previousNode, cursor: previousCursor ?? tip, tip };
}

/** The position the new owner's reader must have routed up to before the replay is read. */
export const replayTarget = (base: RouteBase): string => laterId(base.cursor, base.tip);

/** An entry as the replay sees it: who appended it and, once known, its stream id. */
export interface OwedCandidate {
  readonly id?: string | undefined;
  readonly origin: OriginTag;
}

/**
 * The entries a moved session is owed besides its stored queue, in order: of `entries` (the
 * stream after `base.cursor` up to `position`, where this node's reader stands, message entries
 * only) each first copy, then `unread`: this node's own appends its reader has not passed (they
 * were routed here before the session was; since a crash, those of the node's earlier runs after
 * its cursor). Both leave out the base node's own appends up to `base.tip`: they are in the stored
 * queue already. An unread append whose id is not known yet was committed after every claim this
 * node has heard of, so after `base.tip`; one whose id is at or before `position` is passed, read
 * or not: the stream was trimmed past it before this node's reader came (a node paused past its
 * timeout loses its cursor's hold on the trim), so every node routed it long ago, when the session
 * may not have existed yet.
 */
export function owedEntries<E extends OwedCandidate, U extends OwedCandidate>(base: RouteBase, position: string, entries: readonly E[], unread: readonly U[], fresh: (origin: OriginTag) => boolean): (E | U)[] {
  const held = (e: OwedCandidate): boolean => e.origin.node === base.node && e.id !== undefined && compareIds(e.id, base.tip) <= 0;
  const passed = (u: OwedCandidate): boolean => u.id !== undefined && compareIds(u.id, position) <= 0;
  return [...entries.filter((e) => fresh(e.origin) && !held(e)), ...unread.filter((u) => !held(u) && !passed(u))];
}

/** True when `a` was appended before `b` by the same node (earlier incarnation, or earlier in one). */
export const appendedBefore = (a: OriginTag, b: OriginTag): boolean => a.incarnation < b.incarnation || (a.incarnation === b.incarnation && a.counter <= b.counter);

/**
 * The id below which the routes stream may be trimmed: the earliest of every node's committed
 * cursor and every unsettled route base's cursor, read together (one MULTI). Undefined: nothing
 * holds it, trim nothing. Safe against what happens after the read: cursors only move forward,
 * and a base recorded later starts at its previous owner's cursor, which was in the read.
 */
export function trimFloor(cursors: Iterable<string>, baseCursors: Iterable<string>): string | undefined {
  return earliestId([...cursors, ...baseCursors]);
}
