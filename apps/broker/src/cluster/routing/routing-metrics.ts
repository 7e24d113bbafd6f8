/**
 * Metrics of cross-node routing, per node: messages this node appended to the routes stream for
 * the others, messages of other nodes it routed here, shared-group copies that found no member,
 * and how far its reader is behind the tip.
 * @module
 */
import { Counter, Gauge, type Registry } from "prom-client";
import { METRIC_PREFIX } from "../../metrics/broker-metrics.js";

/** What routing counted. */
export class RoutingCounters {
  /** Messages accepted here and appended for the other nodes. */
  out = 0;
  /** Messages of other nodes routed into this node's sessions. */
  in = 0;
  /** `$share` copies another node decided for this node that found no member of their group here (it left meanwhile). */
  shareUnrouted = 0;
  /** Entries of the routes stream the slowest node has not read (sampled with the lag). */
  backlog = 0;
  /** The backlog is past `cluster.maxStreamBacklog`: publishers are held. */
  backlogged = false;
  /** Milliseconds between the stream's last entry and the last one routed here (0: caught up). */
  lagMs = 0;
}

/** Registers the routing metrics on `registry`. */
export function observeRouting(registry: Registry, counters: RoutingCounters): void {
  const registers = [registry];
  new Counter({ name: `${METRIC_PREFIX}cluster_routed_out_total`, help: "Messages accepted on this node and appended to the routes stream for the other nodes.", registers, collect() { this.reset(); this.inc(counters.out); } });
  new Counter({ name: `${METRIC_PREFIX}cluster_routed_in_total`, help: "Messages accepted on other nodes and routed into this node's sessions.", registers, collect() { this.reset(); this.inc(counters.in); } });
  new Counter({ name: `${METRIC_PREFIX}cluster_share_copies_unrouted_total`, help: "$share group copies decided for this node by another that found no member of the group here (its last member left meanwhile).", registers, collect() { this.reset(); this.inc(counters.shareUnrouted); } });
  new Gauge({ name: `${METRIC_PREFIX}cluster_stream_backlog_entries`, help: "Routes-stream entries the slowest node has not read; past cluster.maxStreamBacklog every node holds its publishers.", registers, collect() { this.set(counters.backlog); } });
  new Gauge({ name: `${METRIC_PREFIX}cluster_stream_lag_ms`, help: "How far this node's routes reader is behind the stream's last entry, ms (0: caught up).", registers, collect() { this.set(counters.lagMs); } });
}
