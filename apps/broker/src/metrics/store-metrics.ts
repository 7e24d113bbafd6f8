/**
 * Metrics of the durable store, sampled at scrape time: whether it takes new work, what waits
 * uncommitted, commits and failed commits, and the publishes refused meanwhile.
 * @module
 */
import { Counter, Gauge, type Registry } from "prom-client";
import { METRIC_PREFIX } from "./broker-metrics.js";

/** What the store metrics read. */
export interface StoreSource {
  readonly admitting: boolean;
  readonly pendingBytes: number;
  readonly stats: { readonly commits: number; readonly failures: number; readonly consecutiveFailures: number };
}

/** What `/health` says of the store: not ok (the endpoint answers 503) while it cannot take new work. */
export function storageStatus(store: StoreSource): { readonly ok: boolean; readonly consecutiveFailures: number; readonly pendingBytes: number } {
  return { ok: store.admitting, consecutiveFailures: store.stats.consecutiveFailures, pendingBytes: store.pendingBytes };
}

/** Registers the store's metrics on `registry`; `refused` counts publishes refused with 0x97 for storage. */
export function observeStore(registry: Registry, store: StoreSource, refused: () => number): void {
  const registers = [registry];
  const gauge = (suffix: string, help: string, read: () => number): void => {
    new Gauge({ name: `${METRIC_PREFIX}${suffix}`, help, registers, collect() { this.set(read()); } });
  };
  const counter = (suffix: string, help: string, read: () => number): void => {
    new Counter({ name: `${METRIC_PREFIX}${suffix}`, help, registers, collect() { this.reset(); this.inc(read()); } });
  };
  gauge("store_available", "1 while the store commits and takes new work; 0 while commits fail or too much waits uncommitted.", () => (store.admitting ? 1 : 0));
  gauge("store_pending_bytes", "Estimated bytes of changes recorded and not yet committed.", () => store.pendingBytes);
  gauge("store_consecutive_failures", "Failed commits since the last successful one.", () => store.stats.consecutiveFailures);
  counter("store_commits_total", "Successful store commits.", () => store.stats.commits);
  counter("store_commit_failures_total", "Failed store commits (each is retried after a backoff).", () => store.stats.failures);
  counter("publishes_refused_storage_total", "QoS 1/2 publishes refused with 0x97 while the store could not take more.", refused);
}
