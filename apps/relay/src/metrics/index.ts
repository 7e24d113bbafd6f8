/** Prometheus metrics of the relay. */
export { RelayMetrics } from "./metrics.js";
