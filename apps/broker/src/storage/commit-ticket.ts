/**
 * The commit ticket both durable stores hand out from flush(): one promise per pending batch,
 * settled when the batch commits or fails.
 * @module
 */
import type { StoreError } from "./errors.js";

/** The commit of one pending batch, shared by every flush() made while the batch is pending. */
export interface Ticket {
  readonly committed: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: StoreError) => void;
}

/**
 * What flush() hands out when nothing is pending: one settled promise, so callers comparing
 * tickets see no new commit to wait for.
 */
export const COMMITTED: Promise<void> = Promise.resolve();

/** A fresh ticket. A batch may fail with nobody waiting on it: that is counted in the store's stats, not an unhandled rejection. */
export function newTicket(): Ticket {
  let resolve: () => void = () => undefined;
  let reject: (error: StoreError) => void = () => undefined;
  const committed = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  committed.catch(() => undefined);
  return { committed, resolve, reject };
}
