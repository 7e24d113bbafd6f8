/**
 * The broker's Prometheus metrics, on a registry of their own (not prom-client's global one, so
 * two brokers in one process or test do not collide). Counters the connection layer sees are
 * incremented directly; the router's own counters and sizes are sampled at scrape time from the
 * source given to {@link BrokerMetrics.observeRouter}.
 * @module
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { RouterSource } from "./router-source.js";

/** Prefix of every broker metric (process metrics keep their standard names). */
export const METRIC_PREFIX = "handoff_broker_";

/** Options of {@link createBrokerMetrics}. */
export interface BrokerMetricsOptions {
  /** Also export prom-client's default process metrics (CPU, memory, event loop lag, GC). Default true. */
  readonly processMetrics?: boolean;
}

/** QoS label values. */
export type QosLabel = "0" | "1" | "2";

/** Totals of the directly counted metrics, for `$SYS` topics. */
export interface TrafficTotals {
  readonly connections: number;
  readonly connects: number;
  readonly messagesReceived: number;
  readonly messagesSent: number;
  readonly bytesReceived: number;
  readonly bytesSent: number;
  readonly authFailures: number;
}

/** The broker's metrics and their registry. */
export interface BrokerMetrics {
  /** The registry `/metrics` serializes. */
  readonly registry: Registry;
  /** Open MQTT connections (sampled from {@link BrokerMetrics.observeConnections} if set, else inc/dec). */
  readonly connections: Gauge;
  /** CONNECTs accepted. */
  readonly connects: Counter;
  /** Connections ended, by reason (a short slug: `client`, `keepalive-timeout`, `takeover`, `protocol-error`, ...). */
  readonly disconnects: Counter<"reason">;
  /** PUBLISH packets received from clients, by QoS. */
  readonly messagesReceived: Counter<"qos">;
  /** PUBLISH packets sent to clients, by QoS. */
  readonly messagesSent: Counter<"qos">;
  /** Bytes read from client sockets. */
  readonly bytesReceived: Counter;
  /** Bytes written to client sockets. */
  readonly bytesSent: Counter;
  /** CONNECTs refused by authentication, by reason (`bad-credentials`, `not-authorized`, `bad-method`). */
  readonly authFailures: Counter<"reason">;
  /** Samples the router's counters and sizes at every scrape; the last source given wins. */
  observeRouter(router: RouterSource): void;
  /** Samples the connection count at every scrape instead of relying on inc/dec. */
  observeConnections(count: () => number): void;
  /** Current totals of the directly counted metrics. */
  totals(): Promise<TrafficTotals>;
}

/** Sum of a metric's values over all label sets. */
async function total(metric: Counter | Gauge): Promise<number> {
  const { values } = await metric.get();
  return values.reduce((sum, { value }) => sum + value, 0);
}

/** Creates the metrics on a fresh registry. */
export function createBrokerMetrics(options: BrokerMetricsOptions = {}): BrokerMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  let router: RouterSource | undefined;
  let connectionCount: (() => number) | undefined;
  const name = (suffix: string): string => `${METRIC_PREFIX}${suffix}`;

  /** A counter that mirrors one of the router's cumulative numbers. */
  const sampledCounter = (suffix: string, help: string, read: (source: RouterSource) => number): Counter =>
    new Counter({
      name: name(suffix),
      help,
      registers,
      collect() {
        if (router === undefined) return;
        this.reset();
        this.inc(read(router));
      },
    });
  const sampledGauge = (suffix: string, help: string, read: (source: RouterSource) => number): Gauge =>
    new Gauge({
      name: name(suffix),
      help,
      registers,
      collect() {
        if (router !== undefined) this.set(read(router));
      },
    });

  sampledGauge("sessions", "Sessions held, connected or not.", (r) => r.sessionCount);
  sampledGauge("subscriptions", "Subscriptions held across all sessions.", (r) => r.subscriptionCount);
  sampledGauge("retained_messages", "Retained messages stored.", (r) => r.retainedCount);
  sampledCounter("messages_routed_total", "Messages routed (publishes and wills).", (r) => r.stats.published);
  sampledCounter("deliveries_total", "Message copies handed to connections, resends included.", (r) => r.stats.sent);
  sampledCounter("messages_queued_total", "Message copies put on a client queue.", (r) => r.stats.queued);
  sampledCounter("messages_unmatched_total", "Messages that matched no subscription.", (r) => r.stats.unmatched);
  sampledCounter("takeovers_total", "Connections displaced by a takeover of their client id.", (r) => r.stats.takeovers);
  sampledCounter("wills_published_total", "Will messages published.", (r) => r.stats.willsPublished);
  sampledCounter("sessions_expired_total", "Sessions ended by expiry.", (r) => r.stats.sessionsExpired);
  new Counter({
    name: name("messages_dropped_total"),
    help: "Message copies not delivered, by reason; the broker never drops silently.",
    labelNames: ["reason"],
    registers,
    collect() {
      if (router === undefined) return;
      this.reset();
      for (const [reason, count] of Object.entries(router.stats.dropped)) this.inc({ reason }, count);
    },
  });

  const connections = new Gauge({
    name: name("connections"),
    help: "Open MQTT connections.",
    registers,
    collect() {
      if (connectionCount !== undefined) this.set(connectionCount());
    },
  });
  const connects = new Counter({ name: name("connects_total"), help: "CONNECTs accepted.", registers });
  const disconnects = new Counter({ name: name("disconnects_total"), help: "Connections ended, by reason.", labelNames: ["reason"], registers });
  const messagesReceived = new Counter({ name: name("messages_received_total"), help: "PUBLISH packets received, by QoS.", labelNames: ["qos"], registers });
  const messagesSent = new Counter({ name: name("messages_sent_total"), help: "PUBLISH packets sent, by QoS.", labelNames: ["qos"], registers });
  const bytesReceived = new Counter({ name: name("bytes_received_total"), help: "Bytes read from client connections.", registers });
  const bytesSent = new Counter({ name: name("bytes_sent_total"), help: "Bytes written to client connections.", registers });
  const authFailures = new Counter({ name: name("auth_failures_total"), help: "CONNECTs refused by authentication, by reason.", labelNames: ["reason"], registers });

  return {
    registry,
    connections,
    connects,
    disconnects,
    messagesReceived,
    messagesSent,
    bytesReceived,
    bytesSent,
    authFailures,
    observeRouter(source) {
      router = source;
    },
    observeConnections(count) {
      connectionCount = count;
    },
    async totals() {
      return {
        connections: connectionCount?.() ?? (await total(connections)),
        connects: await total(connects),
        messagesReceived: await total(messagesReceived),
        messagesSent: await total(messagesSent),
        bytesReceived: await total(bytesReceived),
        bytesSent: await total(bytesSent),
        authFailures: await total(authFailures),
      };
    },
  };
}
