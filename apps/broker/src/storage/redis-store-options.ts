/**
 * The settings of the Redis store (redis-store.ts) and how it names its server in messages.
 * @module
 */
import type { CommitInfo } from "./sqlite-store.js";

/** Default key prefix. */
export const DEFAULT_REDIS_PREFIX = "handoff:";

/** Observation points. */
export interface RedisStoreHooks {
  /** After each batch Redis executed (and replicas acknowledged, with `waitReplicas`). */
  readonly onCommit?: (info: CommitInfo) => void;
  /**
   * Another node claimed `clientId`: this node's writes for it were refused. Called before the
   * batch's waiters resume, so a connection closed here sends no acknowledgement it cannot keep.
   */
  readonly onFenced?: (clientId: string) => void;
}

/** Settings of `RedisStore.open`. */
export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  readonly url: string;
  /** Every key starts with this. Default {@link DEFAULT_REDIS_PREFIX}. */
  readonly prefix?: string;
  /** This node's id in the cluster (client-id ownership names it). */
  readonly nodeId: string;
  /**
   * After each batch, WAIT for this many replicas (at most `timeoutMs`); fewer acknowledgements
   * count as a failed commit. Default none.
   */
  readonly waitReplicas?: { readonly count: number; readonly timeoutMs: number };
  /** Backoff after a failed batch, as in SqliteStore. Default 100 / 5000 ms. */
  readonly retryBackoffMs?: { readonly initial: number; readonly max: number };
  /** Most bytes of uncommitted writes before `RedisStore.admitting` turns false. Default 64 MiB. */
  readonly maxPendingBytes?: number;
  readonly hooks?: RedisStoreHooks;
}

/** The URL without credentials, for messages. */
export function where(url: string): string {
  try {
    const u = new URL(url);
    return `redis://${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "redis (unparsable url)";
  }
}
