/**
 * `GET /api/v1/stats`: the live numbers of the dashboard, read from the very counters `/metrics`
 * and `$SYS` read (the router's stats and the connection layer's traffic totals, through
 * `sysSnapshot`), so the three always agree. Counters are cumulative; a reader derives rates
 * (msg/s) from two samples and their `at` times.
 * @module
 */
import type { TrafficTotals } from "../metrics/index.js";
import { sysSnapshot, type RouterSource } from "../metrics/index.js";

/** The router as the stats read it. */
export interface StatsRouter extends RouterSource {
  readonly queueTotals: { readonly queued: number; readonly inflight: number };
}

/** Where the stats come from. */
export interface StatsSources {
  readonly router: StatsRouter;
  /** The metrics' traffic totals (`BrokerMetrics.totals`). */
  readonly totals: () => TrafficTotals;
  /** The broker's clock, ms. */
  readonly now: () => number;
  readonly uptimeSeconds: () => number;
  readonly version: string;
  /** The plain WebSocket listener, for the dashboard's subscription tester; absent when off. */
  readonly websocket?: { readonly port: number; readonly path: string };
}

/** The stats document. */
export interface StatsJson {
  /** When the sample was taken, ms since the epoch. */
  readonly at: number;
  readonly uptimeSeconds: number;
  readonly version: string;
  readonly connections: number;
  readonly sessions: number;
  readonly subscriptions: number;
  readonly retained: number;
  readonly messages: { readonly received: number; readonly sent: number; readonly routed: number };
  readonly bytes: { readonly received: number; readonly sent: number };
  /** Deliveries waiting on session queues now, and sent but unacknowledged. */
  readonly queued: number;
  readonly inflight: number;
  readonly dropped: { readonly total: number; readonly byReason: Readonly<Record<string, number>> };
  readonly websocket: { readonly port: number; readonly path: string } | null;
}

/** Takes one sample. */
export function statsJson(sources: StatsSources): StatsJson {
  const sys = sysSnapshot(sources.router, sources.totals());
  const { queued, inflight } = sources.router.queueTotals;
  const byReason = { ...sys.dropped };
  return {
    at: sources.now(),
    uptimeSeconds: Math.floor(sources.uptimeSeconds()),
    version: sources.version,
    connections: sys.clientsConnected,
    sessions: sys.clientsTotal,
    subscriptions: sys.subscriptions,
    retained: sys.retained,
    messages: { received: sys.messagesReceived, sent: sys.messagesSent, routed: sources.router.stats.published },
    bytes: { received: sys.bytesReceived, sent: sys.bytesSent },
    queued,
    inflight,
    dropped: { total: Object.values(byReason).reduce((sum, n) => sum + n, 0), byReason },
    websocket: sources.websocket ?? null,
  };
}
