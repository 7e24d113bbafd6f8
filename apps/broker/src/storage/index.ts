/**
 * The broker's embedded durable store: sessions, subscriptions, queued and in-flight deliveries,
 * inbound QoS 2 ids, wills and retained messages in one SQLite file, with group commit.
 * @module
 */
export { StoreError, StoreOpenError, type OpenProblem, type StoreErrorKind } from "./errors.js";
export { DEFAULT_FILE_NAME, type OpenOptions } from "./open.js";
export type { RouterSnapshot, SessionSnapshot, StoredDelivery } from "./snapshot.js";
export { SqliteStore, type CommitInfo, type SqliteStoreOptions, type StoreHooks, type StoreStats } from "./sqlite-store.js";
