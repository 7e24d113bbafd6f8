/**
 * Metrics of what hostile or broken input made the broker do: handler errors it contained and
 * limits clients ran into.
 * @module
 */
import { Counter, type Registry } from "prom-client";
import { METRIC_PREFIX } from "./broker-metrics.js";

/** The counters these metrics mirror (the broker's {@link BrokerCounters} has them). */
export interface SafetySource {
  /** Errors that escaped a connection's handler (each closed that connection only). */
  readonly handlerErrors: number;
  /** How often each limit refused something, by limit name. */
  readonly limitsExceeded: Readonly<Record<string, number>>;
}

/** Registers `handoff_broker_handler_errors_total` and `handoff_broker_limits_exceeded_total{limit}`. */
export function registerSafetyMetrics(registry: Registry, source: SafetySource): void {
  const registers = [registry];
  new Counter({
    name: `${METRIC_PREFIX}handler_errors_total`,
    help: "Errors that escaped a connection's handler; each closed that connection only.",
    registers,
    collect() {
      this.reset();
      this.inc(source.handlerErrors);
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}limits_exceeded_total`,
    help: "Requests refused because they exceeded a configured limit, by limit.",
    labelNames: ["limit"],
    registers,
    collect() {
      this.reset();
      for (const [limit, count] of Object.entries(source.limitsExceeded)) this.inc({ limit }, count);
    },
  });
}
