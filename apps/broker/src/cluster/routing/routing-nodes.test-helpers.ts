// Test-only: cluster nodes as create-broker wires their routing (store, router, cluster routing),
// in one process against one real redis-server, with no housekeeping of their own (a test trims
// when it wants to) and hooks to make a node's Redis reads fail or wait on cue.
import { ManualClock } from "@handoff/seqlog";
import { Router } from "@handoff/mqtt-router";
import { pino } from "pino";
import { afterEach } from "vitest";
import { RedisStore } from "../../storage/redis-store.js";
import { recordingSink } from "../../storage/store.test-helpers.js";
import type { ClusterKeys } from "../keys.js";
import type { RedisFixture } from "../redis.test-helpers.js";
import type { Displaceable } from "../session-handoff.js";
import { startClusterRouting, type ClusterRouting } from "./cluster-routing.js";
import { SharedGroupsRouting } from "./shared-groups.js";

const HOUR = 3600_000;

/** A connection of a node's store (RedisStore.connection). */
export type NodeConnection = ReturnType<RedisStore["connection"]>;

/** One node's parts. */
export interface RoutingNode {
  readonly id: string;
  readonly store: RedisStore;
  readonly router: Router<Displaceable>;
  readonly routing: ClusterRouting;
  /** The routing's connection for replays and housekeeping (a test may make its reads fail). */
  readonly query: NodeConnection;
}

/** How a test changes a node: `reader` may wrap the connection its routes reader blocks on. */
export interface RoutingNodeOptions {
  readonly reader?: (connection: NodeConnection) => NodeConnection;
}

/** Starts nodes of one cluster (`keys`); every node started in a test is closed after it. */
export function routingNodes(redis: RedisFixture, keys: ClusterKeys): (id: string, options?: RoutingNodeOptions) => Promise<RoutingNode> {
  const running: RoutingNode[] = [];
  afterEach(async () => {
    for (const node of running.splice(0)) {
      await node.routing.close();
      await node.store.close();
    }
  });
  return async (id, options = {}) => {
    const store = await RedisStore.open({ url: redis.server.url, prefix: keys.prefix, nodeId: id });
    const groups = new SharedGroupsRouting(id, (change) => {
      store.shareChanged(change);
    });
    const router = new Router<Displaceable>({
      clock: new ManualClock(1_000_000),
      store,
      onPublished: (m) => {
        // Bound below: the router calls this only for a publish, after the routing has started.
        routing.published(m);
      },
    });
    const query = store.connection();
    const readerConnection = options.reader?.(store.connection());
    const routing = startClusterRouting({
      router,
      store,
      groups,
      query,
      ...(readerConnection === undefined ? {} : { readerConnection }),
      holdFor: () => undefined,
      maxStreamBacklog: 1_000_000,
      housekeepingMs: HOUR,
      log: pino({ level: "silent" }),
    });
    const node = { id, store, router, routing, query };
    running.push(node);
    return node;
  };
}

/** A connection for the router that records what it is sent. */
export const displaceableSink = (): Displaceable & ReturnType<typeof recordingSink> => ({ ...recordingSink(), disconnect: () => undefined, takenOverElsewhere: () => undefined });
