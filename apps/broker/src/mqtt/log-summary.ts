/**
 * Rate-limited log lines for what a client can make happen as often as it likes (publishes and
 * subscriptions the ACL denies, requests a limit refuses): each event is logged at `debug` where
 * it happens; these summaries put one line per interval at `info` (per client) or `warn` (per
 * limit), so a client repeating a denied request cannot flood the log.
 * @module
 */
import type { Logger } from "pino";

/** How often summaries go out. */
export const SUMMARY_INTERVAL_MS = 10_000;

/** What a client did that the ACL denied. */
export type DeniedKind = "publish" | "subscribe";

/** Beyond this many clients in one interval, the rest are summed up as one line. */
const MAX_CLIENTS = 1000;

/** Denials per client, logged once per interval: "N publishes denied for client X in the last 10 s". */
export class DeniedSummary {
  readonly #log: Logger;
  readonly #intervalMs: number;
  #counts = new Map<string, Record<DeniedKind, number>>();
  #others: Record<DeniedKind, number> = { publish: 0, subscribe: 0 };
  #windowStart: number;

  /** @param now the clock's reading (ms) when counting starts */
  constructor(log: Logger, now: number, intervalMs = SUMMARY_INTERVAL_MS) {
    this.#log = log;
    this.#intervalMs = intervalMs;
    this.#windowStart = now;
  }

  /** Counts one denial for `clientId`. */
  note(kind: DeniedKind, clientId: string): void {
    let counts = this.#counts.get(clientId);
    if (counts === undefined) {
      if (this.#counts.size >= MAX_CLIENTS) {
        this.#others[kind] += 1;
        return;
      }
      counts = { publish: 0, subscribe: 0 };
      this.#counts.set(clientId, counts);
    }
    counts[kind] += 1;
  }

  /** Logs what was counted, once `now` is an interval past the last summary. */
  flush(now: number): void {
    if (now - this.#windowStart < this.#intervalMs) return;
    const seconds = Math.round((now - this.#windowStart) / 1000);
    this.#windowStart = now;
    for (const [clientId, counts] of this.#counts) this.#report(counts, seconds, clientId);
    this.#report(this.#others, seconds, undefined);
    this.#counts = new Map();
    this.#others = { publish: 0, subscribe: 0 };
  }

  #report(counts: Readonly<Record<DeniedKind, number>>, seconds: number, clientId: string | undefined): void {
    const who = clientId === undefined ? `${String(MAX_CLIENTS)}+ other clients` : `client ${clientId}`;
    for (const kind of ["publish", "subscribe"] as const) {
      const denied = counts[kind];
      if (denied === 0) continue;
      const what = kind === "publish" ? "publishes" : "subscriptions";
      this.#log.info({ clientId, kind, denied, seconds }, `${String(denied)} ${what} denied for ${who} in the last ${String(seconds)} s`);
    }
  }
}

/**
 * Refusals by limit (from counters that only grow), logged once per interval per limit that
 * refused something: "limit reached: 12 refused by limits.maxRetainedMessages in the last 10 s".
 */
export class LimitSummary {
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #read: () => Readonly<Record<string, number>>;
  readonly #settings: Readonly<Record<string, string>>;
  #seen: Record<string, number>;
  #windowStart: number;

  /**
   * @param read the cumulative refusals by limit name
   * @param settings the setting each limit name stands for, for the log line
   * @param now the clock's reading (ms) when counting starts
   */
  constructor(log: Logger, read: () => Readonly<Record<string, number>>, settings: Readonly<Record<string, string>>, now: number, intervalMs = SUMMARY_INTERVAL_MS) {
    this.#log = log;
    this.#read = read;
    this.#settings = settings;
    this.#intervalMs = intervalMs;
    this.#seen = { ...read() };
    this.#windowStart = now;
  }

  /** Logs the limits that refused something since the last summary, once an interval has passed. */
  flush(now: number): void {
    if (now - this.#windowStart < this.#intervalMs) return;
    const seconds = Math.round((now - this.#windowStart) / 1000);
    this.#windowStart = now;
    const current = this.#read();
    for (const [limit, total] of Object.entries(current)) {
      const refused = total - (this.#seen[limit] ?? 0);
      if (refused <= 0) continue;
      const setting = this.#settings[limit] ?? limit;
      this.#log.warn({ limit, setting, refused, seconds }, `limit reached: ${String(refused)} refused by ${setting} in the last ${String(seconds)} s`);
    }
    this.#seen = { ...current };
  }
}
