/**
 * A session moving to this node while publishes flow gets each message once.
 *
 * The claim's script returns the session's route base: its old node `B`, B's committed routes
 * cursor `c` and the stream's tip `t` at the claim. B's stored queue for the session then holds
 * exactly the entries up to `c` of other nodes (B's reader committed them atomically with its
 * cursor) and B's own entries up to `t` (routed there when B accepted them; after the claim B's
 * writes for the session are refused). This node waits until its reader has routed at least up to
 * `t`, holds it there (position `p`), and appends to the stored session before adopting it the
 * entries in `(c, p]` except B's own up to `t`, plus this node's own appends its reader has not
 * passed yet (they were routed here before the session was); from `p` on, the reader routes into
 * the session like into any other. The replay's deliveries and the route base's deletion go out
 * in one fenced batch: until it commits, the base stays in Redis, so a crash here leaves the next
 * owner the same computation. A survivor adopting a dead node's session does the same from the
 * route base its claim recorded, so messages routed while nobody read for that session reach it.
 * @module
 */
import type { Message, Router, SessionSnapshot, ShareDecisions } from "@handoff/mqtt-router";
import type { Redis } from "ioredis";
import type { RedisStore } from "../../storage/redis-store.js";
import { giveUpSession, type Displaceable } from "../session-handoff.js";
import type { UninstalledClaims } from "./uninstalled-claims.js";
import { replayInto, sessionShareKeys, type ReplayItem } from "./replay.js";
import { owedEntries, replayTarget, type RouteBase } from "./handoff-rules.js";
import { OriginsSeen, type OriginTag, type RouteEntry } from "./route-entry.js";
import { readRange, type RouteReader } from "./route-reader.js";
import type { SharedGroupsRouting } from "./shared-groups.js";
import { compareIds } from "./stream-id.js";

/** What {@link loadSessionRouted} works with. */
export interface HandoffDeps {
  readonly store: RedisStore;
  readonly reader: RouteReader;
  /** A connection for XRANGE (not the reader's, which blocks). */
  readonly query: Redis;
  readonly stream: string;
  readonly now: () => number;
  /** This node's shared-group routing: it takes a dead node's copies once it adopts from it. */
  readonly groups: SharedGroupsRouting;
  /** Claims of this node not installed (a replay that failed), and one lane of work per client id. */
  readonly uninstalled: UninstalledClaims;
}

/**
 * Installs a session taken from another node (`install` puts the snapshot in the router) once the
 * messages its route base owes it are appended to it (see the module doc); without a route base,
 * at once. Used for a client connecting here and for a dead node's session adopted here.
 */
export type SettleMoved = (clientId: string, stored: SessionSnapshot, routeBase: RouteBase | undefined, install: (snapshot: SessionSnapshot) => void, orphan?: OrphanShares) => Promise<void>;

/**
 * The sessions of one dead node adopted here in one round share its `$share` copies: a copy
 * decided for the dead node that it never routed goes to the first adopted member of its group
 * (`claimed` holds the origin tag and group of each copy handed out).
 */
export interface OrphanShares {
  readonly claimed: Set<string>;
  /** This node is the dead node's heir (wills-adoption.ts electHeir): only the heir delivers its copies. */
  readonly heir: boolean;
}

/** The {@link SettleMoved} of a routed cluster node. */
export function settleMovedSession(deps: HandoffDeps): SettleMoved {
  return async (clientId, stored, routeBase, install, orphan) => {
    if (routeBase === undefined) {
      install(stored);
      return;
    }
    await deps.reader.hold(replayTarget(routeBase), async (position) => {
      const entries = compareIds(position, routeBase.cursor) > 0 ? await readRange(deps.query, deps.stream, routeBase.cursor, position) : [];
      // One synchronous run from here to the install: what this node appends from then on is
      // routed into the session here, what it appended before is in the replay. A dead node's
      // shared-group copies decided from here on are this node's (its reader routes them).
      if (orphan?.heir === true) deps.groups.takeCopiesOf(routeBase.node);
      const replayed = replayInto(stored, owedItems(deps.store, routeBase, position, entries, orphan?.heir === true ? { stored, claimed: orphan.claimed } : undefined), deps.now());
      for (const d of replayed.added) deps.store.deliveryQueued(clientId, d.seq, d.delivery);
      deps.store.routeBaseSettled(clientId);
      install(replayed.snapshot);
    });
  };
}

/**
 * The broker's `loadSession` in a routed cluster. When the replay fails after the claim (Redis
 * went away), the claim is left to `deps.uninstalled` before the connect is refused.
 */
export function loadSessionRouted(deps: HandoffDeps): (router: Router<Displaceable>, clientId: string) => Promise<void> {
  const settle = settleMovedSession(deps);
  return (router, clientId) =>
    deps.uninstalled.exclusive(clientId, async () => {
      const taken = await deps.store.takeSession(clientId, () => {
        giveUpSession(router, clientId);
      });
      if (taken.current) {
        await caughtUp(deps);
        return;
      }
      // This claim supersedes an earlier one of this node that was not installed.
      deps.uninstalled.delete(clientId);
      const { stored, routeBase } = taken;
      if (stored === undefined) {
        await caughtUp(deps);
        router.adopt(clientId, undefined);
        return;
      }
      try {
        await settle(clientId, stored, routeBase, (snapshot) => {
          router.adopt(clientId, snapshot);
        });
      } catch (err) {
        deps.uninstalled.left(clientId, deps.store);
        throw err;
      }
    });
}

/**
 * Waits until this node's reader has routed what the stream held after the claim (its tip, read
 * now): the session the CONNECT then makes or resumes here never gets a message the cluster
 * accepted before that CONNECT from a reader that lagged (a clean session would have it as a
 * stray). A session moving here waits the same way, for its route base's tip (settleMovedSession).
 */
async function caughtUp(deps: HandoffDeps): Promise<void> {
  const tip = (await deps.query.xrevrange(deps.stream, "+", "-", "COUNT", 1))[0]?.[0];
  if (tip !== undefined) await deps.reader.hold(tip, () => Promise.resolve());
}

// The messages the session is owed besides its stored queue (see the module doc); for a dead
// node's session, with the copies of its shared groups decided for that node and not yet handed
// to another of its adopted sessions.
function owedItems(store: RedisStore, base: RouteBase, position: string, entries: readonly RouteEntry[], orphan: { readonly stored: SessionSnapshot; readonly claimed: Set<string> } | undefined): ReplayItem[] {
  const memberOf = orphan === undefined ? undefined : sessionShareKeys(orphan.stored);
  const item = (origin: OriginTag, message: Message, shares: ShareDecisions): ReplayItem => {
    if (memberOf === undefined || orphan === undefined || memberOf.size === 0) return { message };
    const shareKeys = new Set<string>();
    for (const [key, node] of shares) {
      // By origin tag: the same append may be unread here for one session, read for the next.
      const claim = `${origin.node}\n${String(origin.incarnation)}\n${String(origin.counter)}\n${key}`;
      if (node !== base.node || !memberOf.has(key) || orphan.claimed.has(claim)) continue;
      orphan.claimed.add(claim);
      shareKeys.add(key);
    }
    return { message, shareKeys };
  };
  const seen = new OriginsSeen();
  const messages = entries.flatMap((e) => (e.kind === "message" ? [e] : []));
  const unread = store.appends.unread().map((u) => ({ origin: u.tag, id: u.id, message: u.message, shares: u.shares }));
  return owedEntries(base, position, messages, unread, (origin) => seen.fresh(origin)).map((e) => item(e.origin, e.message, e.shares));
}
