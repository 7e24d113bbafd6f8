/**
 * The cluster gauges every node's `/metrics` carries, from its liveness loop's last survey.
 * @module
 */
import { Gauge, type Registry } from "prom-client";
import { METRIC_PREFIX } from "../metrics/index.js";
import type { ClusterView } from "./liveness.js";

/** Registers `cluster_nodes_alive` and `cluster_sessions` (absent until the first survey). */
export function registerClusterMetrics(registry: Registry, view: () => ClusterView | undefined): void {
  const gauge = (suffix: string, help: string, read: (v: ClusterView) => number): void => {
    new Gauge({
      name: `${METRIC_PREFIX}${suffix}`,
      help,
      registers: [registry],
      collect() {
        const current = view();
        if (current !== undefined) this.set(read(current));
      },
    });
  };
  gauge("cluster_nodes_alive", "Broker nodes whose heartbeat is present in Redis (this one included), as of the last survey.", (v) => v.nodesAlive);
  gauge("cluster_sessions", "Sessions stored cluster-wide in Redis (connected or not), as of the last survey.", (v) => v.sessions);
}
