/**
 * The broker's Prometheus metrics, on a registry of their own (not prom-client's global one, so
 * two brokers in one process or test do not collide). Everything is sampled at scrape time: the
 * connection layer's counters from {@link BrokerMetrics.observeTraffic}, the router's counters and
 * sizes from {@link BrokerMetrics.observeRouter}. The same sources feed `$SYS` through
 * {@link BrokerMetrics.totals}, so both always agree.
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

/** The connection layer's counters as the metrics read them (the broker's `BrokerCounters`). */
export interface TrafficSource {
  readonly connects: number;
  /** By QoS 0, 1, 2. */
  readonly messagesReceived: readonly number[];
  readonly messagesSent: readonly number[];
  readonly bytesReceived: number;
  readonly bytesSent: number;
  readonly disconnects: ReadonlyMap<string, number>;
  readonly authFailures: ReadonlyMap<string, number>;
}

/** Totals of the traffic counters, for `$SYS` topics. */
export interface TrafficTotals {
  /** Connections open now. */
  readonly connections: number;
  /** CONNECTs accepted since start. */
  readonly connects: number;
  /** PUBLISHes received from clients since start. */
  readonly messagesReceived: number;
  /** PUBLISHes sent to clients since start. */
  readonly messagesSent: number;
  /** Bytes read from clients since start. */
  readonly bytesReceived: number;
  /** Bytes written to clients since start. */
  readonly bytesSent: number;
  /** CONNECTs refused by authentication since start. */
  readonly authFailures: number;
}

/** The broker's metrics and their registry. */
export interface BrokerMetrics {
  /** The registry `/metrics` serializes. */
  readonly registry: Registry;
  /** Samples the router's counters and sizes at every scrape; the last source given wins. */
  observeRouter(router: RouterSource): void;
  /**
   * Samples the connection layer's counters at every scrape: connects, disconnects by reason,
   * messages received and sent by QoS, bytes both ways, auth failures by reason.
   */
  observeTraffic(traffic: TrafficSource): void;
  /** Samples the open connection count at every scrape. */
  observeConnections(count: () => number): void;
  /** Current totals of the traffic counters (zeros before {@link observeTraffic}). */
  totals(): TrafficTotals;
}

const NO_TRAFFIC: TrafficSource = { connects: 0, messagesReceived: [], messagesSent: [], bytesReceived: 0, bytesSent: 0, disconnects: new Map(), authFailures: new Map() };
const sum = (values: Iterable<number>): number => {
  let n = 0;
  for (const v of values) n += v;
  return n;
};

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

  new Gauge({
    name: name("connections"),
    help: "Open MQTT connections.",
    registers,
    collect() {
      this.set(connectionCount?.() ?? 0);
    },
  });
  let traffic = NO_TRAFFIC;
  const trafficCounter = (suffix: string, help: string, read: (source: TrafficSource) => number): void => {
    new Counter({
      name: name(suffix),
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(traffic));
      },
    });
  };
  const labelledCounter = (suffix: string, help: string, label: string, read: (source: TrafficSource) => Iterable<readonly [string, number]>): void => {
    new Counter({
      name: name(suffix),
      help,
      labelNames: [label],
      registers,
      collect() {
        this.reset();
        for (const [value, count] of read(traffic)) this.inc({ [label]: value }, count);
      },
    });
  };
  const byQos = (counts: readonly number[]): [string, number][] => counts.map((count, qos) => [String(qos), count]);
  trafficCounter("connects_total", "CONNECTs accepted.", (t) => t.connects);
  labelledCounter("disconnects_total", "Connections ended, by reason.", "reason", (t) => t.disconnects);
  labelledCounter("messages_received_total", "PUBLISH packets received, by QoS.", "qos", (t) => byQos(t.messagesReceived));
  labelledCounter("messages_sent_total", "PUBLISH packets sent, by QoS (resends included).", "qos", (t) => byQos(t.messagesSent));
  trafficCounter("bytes_received_total", "Bytes read from client connections.", (t) => t.bytesReceived);
  trafficCounter("bytes_sent_total", "Bytes written to client connections.", (t) => t.bytesSent);
  labelledCounter("auth_failures_total", "CONNECTs refused by authentication or authorisation, by reason.", "reason", (t) => t.authFailures);

  return {
    registry,
    observeRouter(source) {
      router = source;
    },
    observeTraffic(source) {
      traffic = source;
    },
    observeConnections(count) {
      connectionCount = count;
    },
    totals() {
      return {
        connections: connectionCount?.() ?? 0,
        connects: traffic.connects,
        messagesReceived: sum(traffic.messagesReceived),
        messagesSent: sum(traffic.messagesSent),
        bytesReceived: traffic.bytesReceived,
        bytesSent: traffic.bytesSent,
        authFailures: sum(traffic.authFailures.values()),
      };
    },
  };
}
