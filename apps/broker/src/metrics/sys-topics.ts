/**
 * The `$SYS/broker/...` topics, as mosquitto names them so existing dashboards work. A pure
 * function of a snapshot: the app gathers the numbers, calls {@link sysTopics} on a timer and
 * publishes each pair as a retained QoS 0 message.
 * @module
 */
import type { TrafficTotals } from "./broker-metrics.js";
import type { RouterSource } from "./router-source.js";

/** The numbers the `$SYS` topics report. */
export interface SysSnapshot {
  /** Clients connected now. */
  readonly clientsConnected: number;
  /** Sessions held, connected or not (mosquitto's clients/total). */
  readonly clientsTotal: number;
  readonly messagesReceived: number;
  readonly messagesSent: number;
  readonly bytesReceived: number;
  readonly bytesSent: number;
  readonly subscriptions: number;
  readonly retained: number;
  /** Dropped message copies by reason. */
  readonly dropped: Readonly<Record<string, number>>;
}

/** What the broker says about itself. */
export interface BrokerInfo {
  /** e.g. `handoff 0.1.0`. */
  readonly version: string;
  /** Seconds since start. */
  readonly uptimeSeconds: number;
}

/** One retained message to publish. */
export interface SysMessage {
  readonly topic: string;
  readonly payload: string;
}

/** The root of the broker's `$SYS` tree. */
export const SYS_PREFIX = "$SYS/broker";

/** Builds a {@link SysSnapshot} from the router and the metrics' totals. */
export function sysSnapshot(router: RouterSource, totals: TrafficTotals): SysSnapshot {
  return {
    clientsConnected: totals.connections,
    clientsTotal: router.sessionCount,
    messagesReceived: totals.messagesReceived,
    messagesSent: totals.messagesSent,
    bytesReceived: totals.bytesReceived,
    bytesSent: totals.bytesSent,
    subscriptions: router.subscriptionCount,
    retained: router.retainedCount,
    dropped: router.stats.dropped,
  };
}

/**
 * The `$SYS/broker/...` messages for a snapshot: version, uptime (`<n> seconds`, as mosquitto
 * writes it), client, message, byte, subscription and retained counts, and dropped messages in
 * total and per reason (`messages/dropped/<reason>`).
 */
export function sysTopics(snapshot: SysSnapshot, info: BrokerInfo): SysMessage[] {
  const entry = (path: string, value: number | string): SysMessage => ({ topic: `${SYS_PREFIX}/${path}`, payload: String(value) });
  const reasons = Object.entries(snapshot.dropped).sort(([a], [b]) => a.localeCompare(b));
  return [
    entry("version", info.version),
    entry("uptime", `${String(Math.floor(info.uptimeSeconds))} seconds`),
    entry("clients/connected", snapshot.clientsConnected),
    entry("clients/total", snapshot.clientsTotal),
    entry("messages/received", snapshot.messagesReceived),
    entry("messages/sent", snapshot.messagesSent),
    entry("bytes/received", snapshot.bytesReceived),
    entry("bytes/sent", snapshot.bytesSent),
    entry("subscriptions/count", snapshot.subscriptions),
    entry("retained messages/count", snapshot.retained),
    entry("messages/dropped", reasons.reduce((sum, [, count]) => sum + count, 0)),
    ...reasons.map(([reason, count]) => entry(`messages/dropped/${reason}`, count)),
  ];
}
