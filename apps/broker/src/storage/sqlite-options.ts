/**
 * The settings, hooks and counters of the SQLite store.
 * @module
 */
import type { CommitProbe } from "./commit-probe.js";
import type { OpenOptions } from "./open.js";

/** What one successful commit wrote. */
export interface CommitInfo {
  /** Row changes in the transaction (after coalescing). */
  readonly operations: number;
  /** Wall time of the transaction including its fsync, ms. */
  readonly durationMs: number;
}

/** Observation and fault-injection points, for tests and metrics. */
export interface StoreHooks {
  /** Called after each successful commit. */
  readonly onCommit?: (info: CommitInfo) => void;
  /**
   * Called just before each batch is handed to the commit worker (which runs it in one
   * transaction): throwing fails that commit as a failed write would, and its changes stay owed
   * (tests inject write failures and crashes this way).
   */
  readonly beforeCommit?: () => void;
  /**
   * Shared with the commit worker thread, for the crash tests: it halts the worker at an armed
   * commit boundary (the process dies there), and lets each answer arrive a fixed number of
   * event-loop turns after its batch was handed over, so runs repeat (see commit-probe.ts).
   */
  readonly probe?: CommitProbe;
}

/** Settings of {@link SqliteStore.open}. */
export interface SqliteStoreOptions extends OpenOptions {
  /**
   * When commits run back to back (the previous one ended less than this many ms ago), wait this
   * long before the next one to gather a bigger batch. 0 (default): commit on the next turn.
   */
  readonly commitDelayMs?: number;
  /**
   * After a failed commit (disk full, I/O error) the next attempt waits `initial` ms, doubling with
   * each further failure up to `max`, instead of running again every turn. Default 100 / 5000.
   */
  readonly retryBackoffMs?: { readonly initial: number; readonly max: number };
  /**
   * Most bytes of changes held uncommitted (an upper estimate: payloads and topics of new messages
   * plus a fixed cost per change); past it {@link SqliteStore.admitting} is false. Default 64 MiB.
   */
  readonly maxPendingBytes?: number;
  readonly hooks?: StoreHooks;
}

/** Default of {@link SqliteStoreOptions.maxPendingBytes}. */
export const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;

/** Counters for metrics. */
export interface StoreStats {
  /** Successful transactions. */
  commits: number;
  /** Failed (rolled back) transactions. */
  failures: number;
  /** Failures since the last successful commit. */
  consecutiveFailures: number;
}
