/**
 * Prometheus metrics of the broker and its `$SYS` topics.
 * @module
 */
export {
  createBrokerMetrics,
  METRIC_PREFIX,
  type BrokerMetrics,
  type BrokerMetricsOptions,
  type TrafficSource,
  type TrafficTotals,
} from "./broker-metrics.js";
export { registerSafetyMetrics, type SafetySource } from "./safety-metrics.js";
export type { RouterSource, RouterStatsSource } from "./router-source.js";
export { observeStore, storageStatus, type StoreSource } from "./store-metrics.js";
export { SYS_PREFIX, sysSnapshot, sysTopics, type BrokerInfo, type SysMessage, type SysSnapshot } from "./sys-topics.js";
