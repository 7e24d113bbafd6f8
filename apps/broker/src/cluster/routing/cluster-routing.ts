/**
 * Cross-node routing of a cluster on Redis: every message this node accepts (a client's publish or
 * a will) is routed here at once and appended to one stream of routes (`<prefix>routes`) in the same fenced batch as its
 * deliveries, so its acknowledgement waits for the append and a node fenced out of the publisher's
 * client id cannot append; every node reads the stream with its own cursor and routes the other
 * nodes' entries into its sessions, connected or not (an offline session is delivered into by the
 * node holding its token). The stream is one total order, so per publisher the order of
 * acceptance is the order everywhere (router invariant 3), and retained messages, written by the
 * accepting node, are applied by every node in that order. While a subscriber routed into here
 * is congested the reader pauses (flow control; the stream holds the backlog). `$share` groups get one copy each
 * cluster-wide: the accepting node decides which node delivers it (shared-groups.ts). The stream
 * is trimmed below the slowest committed cursor.
 * @module
 */
import type { Message, Router, RouterOptions } from "@handoff/mqtt-router";
import type { Logger } from "pino";
import type { RedisStore } from "../../storage/redis-store.js";
import { STREAM_BACKLOG } from "../../mqtt/stream-backlog.js";
import type { Displaceable } from "../session-handoff.js";
import type { ClusterKeys } from "../keys.js";
import { loadSessionRouted, settleMovedSession, type SettleMoved } from "./handoff.js";
import { parseShareFields } from "./route-entry.js";
import { RouteReader } from "./route-reader.js";
import { UninstalledClaims } from "./uninstalled-claims.js";
import { RoutingCounters } from "./routing-metrics.js";
import type { SharedGroupsRouting } from "./shared-groups.js";
import { trimFloor } from "./handoff-rules.js";
import { compareIds } from "./stream-id.js";

/** Settings of {@link startClusterRouting}. */
export interface ClusterRoutingOptions {
  readonly router: Router<Displaceable>;
  readonly store: RedisStore;
  /** The shared groups' routing, the router's `sharedCopy` and `onSharedGroup` (see {@link clusterRouterOptions}). */
  readonly groups: SharedGroupsRouting;
  /** The broker's flow control for congested subscribers (Broker.holdFor). */
  readonly holdFor: (congested: readonly string[]) => { readonly released: Promise<void> } | undefined;
  readonly log: Logger;
  /** How often the stream is trimmed and the lag and backlog sampled, ms. Default 250: the backlog bound is passed by at most what the cluster accepts meanwhile. */
  readonly housekeepingMs?: number;
  /** Entries the slowest node may have unread before publishers here are held (cluster.maxStreamBacklog). */
  readonly maxStreamBacklog: number;
  readonly now?: () => number;
  /** The connection for the replays' reads and the housekeeping; default a new one (RedisStore.connection). */
  readonly query?: ReturnType<RedisStore["connection"]>;
  /** The connection the routes reader blocks on; default a new one (tests make its reads wait). */
  readonly readerConnection?: ReturnType<RedisStore["connection"]>;
}

/** Running routing of one node. */
export interface ClusterRouting {
  /** The broker's `loadSession`: a session moving here gets what was routed meanwhile, once. */
  readonly loadSession: (router: Router<Displaceable>, clientId: string) => Promise<void>;
  /** A dead node's session adopted here gets what was routed since that node last read, once. */
  readonly settleMoved: SettleMoved;
  /** Sessions claimed here whose install failed; the liveness rounds install them (wills-adoption.ts). */
  readonly uninstalled: UninstalledClaims;
  readonly counters: RoutingCounters;
  /**
   * The router's `onPublished`: a message accepted here (a client's publish or a will) is
   * appended to the stream in the batch of its deliveries, fenced by its publisher's token.
   */
  published(message: Message): void;
  /** True while the slowest node has more than `maxStreamBacklog` entries unread (publishers here are held). */
  readonly backlogged: () => boolean;
  /** Trims the stream and samples the lag and backlog now (what the housekeeping timer runs). */
  housekeep(): Promise<void>;
  /** A node was found dead (and taken out of the cluster's set) here: its shared-group memberships go. */
  nodeDead(node: string): void;
  /** Stops reading (the store closes on its own). */
  close(): Promise<void>;
}

// Server topics stay on their node: each node publishes its own `$SYS`.
const local = (message: Message): boolean => message.topic.startsWith("$SYS/");

/**
 * The router options of a cluster node: its `$share` groups' copies as `groups` decides (a
 * server topic's stay here), its groups' memberships told to `groups`.
 */
export function clusterRouterOptions(groups: SharedGroupsRouting): Pick<RouterOptions, "sharedCopy" | "onSharedGroup"> {
  return {
    sharedCopy: (message, group, filter) => local(message) || groups.sharedCopy(message, group, filter),
    onSharedGroup: (group, filter, present) => {
      groups.localChanged(group, filter, present);
    },
  };
}

/** Starts this node's reader; the broker hands {@link ClusterRouting.published} every accepted message. */
export function startClusterRouting(options: ClusterRoutingOptions): ClusterRouting {
  const { router, store, log, groups } = options;
  const keys = store.keys;
  const counters = new RoutingCounters();
  const route = router.publish.bind(router);
  router.publish = (message) => {
    const outcome = route(message);
    if (local(message)) return outcome;
    // Subscribers may be on other nodes: "no matching subscribers" cannot be known here. While
    // the stream is past its backlog bound, the publisher is held as for a congested subscriber.
    if (!outcome.noMatchingSubscribers && !counters.backlogged) return outcome;
    return { ...outcome, noMatchingSubscribers: false, congested: counters.backlogged ? [...outcome.congested, STREAM_BACKLOG] : outcome.congested };
  };
  const reader = new RouteReader({
    connection: options.readerConnection ?? store.connection(),
    stream: keys.routes,
    start: store.routeCursor,
    apply: (entries) => {
      let congested: Set<string> | undefined;
      for (const entry of entries) {
        if (entry.kind === "share") groups.applied(entry.change);
        if (entry.origin.node === store.nodeId) {
          store.appends.passed(entry.origin.incarnation, entry.origin.counter);
          continue;
        }
        if (entry.kind === "message") {
          counters.in += 1;
          const { outcome, unrouted } = store.routingRemote(() => groups.routeRemote(entry, route));
          counters.shareUnrouted += unrouted;
          for (const id of outcome.congested) (congested ??= new Set()).add(id);
        }
      }
      // Own appends the stream was trimmed past before this reader came are passed too.
      const last = entries.at(-1);
      if (last !== undefined) store.appends.passedThrough(last.id);
      // Read no further while a subscriber routed into here is above its high-water mark.
      return congested === undefined ? undefined : options.holdFor([...congested])?.released;
    },
    commit: (cursor) => {
      store.cursorAdvanced(cursor);
      return store.flush();
    },
    onError: (err) => {
      log.warn({ err }, "routes stream: read or commit failed; retrying");
    },
  });
  const query = options.query ?? store.connection();
  // Where shared groups have members, read before the stream is followed: the stream's changes
  // from this node's cursor on then bring that state up to date, never back.
  void query
    .hkeys(keys.shares)
    .then((fields) => {
      groups.load(parseShareFields(fields));
    })
    .catch((err: unknown) => {
      log.warn({ err }, "shared groups: reading where they have members failed; following the routes stream only");
    })
    .finally(() => {
      reader.start();
    });
  const uninstalled = new UninstalledClaims();
  const handoff = { store, reader, query, stream: keys.routes, now: options.now ?? Date.now, groups, uninstalled };
  const housekeep = (): Promise<void> => trimAndSample(query, keys, reader.position, counters, options.maxStreamBacklog);
  const housekeeping = setInterval(() => {
    void housekeep().catch((err: unknown) => {
      log.debug({ err }, "routes stream: housekeeping failed");
    });
  }, options.housekeepingMs ?? 250);
  housekeeping.unref();
  return {
    published: (message) => {
      // Another node's message routed here is that node's append.
      if (local(message) || store.routingRemotely) return;
      store.routeAppended(message.origin, message, groups.decisionsFor(message));
      counters.out += 1;
    },
    loadSession: loadSessionRouted(handoff),
    settleMoved: settleMovedSession(handoff),
    uninstalled,
    counters,
    backlogged: () => counters.backlogged,
    housekeep,
    nodeDead: (node) => {
      groups.nodeDead(node);
    },
    close: async () => {
      clearInterval(housekeeping);
      await reader.close();
      query.disconnect();
    },
  };
}

type Query = ReturnType<RedisStore["connection"]>;

// Trims the stream below the slowest committed cursor and every unsettled route base's cursor
// (every entry a node still has to read, or a moving session's replay may need, is after the
// earliest of them: trimFloor), so what is left is the slowest reader's backlog, and samples this
// node's lag behind the tip.
async function trimAndSample(query: Query, keys: ClusterKeys, position: string, counters: RoutingCounters, maxBacklog: number): Promise<void> {
  const slowest = await trimFloorOf(query, keys);
  // One round trip for the rest (this runs four times a second on every node).
  const pipeline = query.pipeline();
  if (slowest !== undefined) pipeline.xtrim(keys.routes, "MINID", slowest);
  const replies = await pipeline.xlen(keys.routes).xrevrange(keys.routes, "+", "-", "COUNT", 1).exec();
  const failed = (replies ?? []).find(([err]) => err !== null)?.[0];
  if (failed) throw failed;
  const [xlen, xrevrange] = (replies ?? []).slice(slowest === undefined ? 0 : 1);
  counters.backlog = Number(xlen?.[1] ?? 0);
  counters.backlogged = counters.backlog > maxBacklog;
  const last = (xrevrange?.[1] as [string, string[]][] | undefined)?.[0]?.[0];
  const behind = last === undefined || compareIds(last, position) <= 0 ? 0 : Number(last.split("-")[0]) - Number(position.split("-")[0]);
  counters.lagMs = Math.max(0, behind);
}

/** The routes stream's {@link trimFloor}, its two hashes read in one MULTI (one snapshot). */
async function trimFloorOf(query: Query, keys: ClusterKeys): Promise<string | undefined> {
  const replies = await query.multi().hvals(keys.cursors).hvals(keys.routeBases).exec();
  if (replies === null) throw new Error("routes stream: the trim's read was discarded");
  const failed = replies.find(([err]) => err !== null)?.[0];
  if (failed) throw failed;
  const [cursors, bases] = replies.map(([, value]) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []));
  return trimFloor(cursors ?? [], bases ?? []);
}
