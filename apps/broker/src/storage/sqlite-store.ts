/**
 * The broker's durable store: a {@link RouterStore} over one SQLite file with group commit.
 *
 * The router reports changes synchronously; they are only recorded here (coalesced, see
 * pending.ts). One transaction per event-loop turn writes everything recorded so far, and
 * {@link SqliteStore.flush} resolves once the transaction covering every earlier change has
 * committed, so the broker sends an acknowledgement only after what it promises is on disk.
 * @module
 */
import type { Assigned, Delivery, Message, RouterStore, SessionRecord, SessionSubscription } from "@handoff/mqtt-router";
import { COMMITTED, newTicket, type Ticket } from "./commit-ticket.js";
import { CommitWorker, type CommitReply } from "./commit-worker.js";
import { StoreError } from "./errors.js";
import { MessageRefs } from "./message-refs.js";
import { openDatabase } from "./open.js";
import { PendingChanges } from "./pending.js";
import type { RouterSnapshot } from "./snapshot.js";
import { DEFAULT_MAX_PENDING_BYTES, type SqliteStoreOptions, type StoreHooks, type StoreStats } from "./sqlite-options.js";
import { rowWrites, type RowWrites } from "./writer.js";

export { DEFAULT_MAX_PENDING_BYTES, type CommitInfo, type SqliteStoreOptions, type StoreHooks, type StoreStats } from "./sqlite-options.js";

// What one recorded change counts against the pending bound, besides a new message's bytes.
const CHANGE_BYTES = 64;

function messageBytes(message: Message): number {
  return message.payload.byteLength + message.topic.length * 2;
}

/** The durable {@link RouterStore}. Create with {@link SqliteStore.open}. */
export class SqliteStore implements RouterStore {
  /** The database file's path. */
  readonly file: string;
  readonly stats: StoreStats = { commits: 0, failures: 0, consecutiveFailures: 0 };
  readonly #worker: CommitWorker;
  /** Batches handed over (or failed and owed a retry) and not yet committed, in order. */
  readonly #unconfirmed: RowWrites[] = [];
  #unconfirmedOperations = 0;
  #unconfirmedBytes = 0;
  /** The ticket of the batch in flight, once someone flushed while it was. */
  #inFlightTicket: Ticket | undefined;
  readonly #snapshot: RouterSnapshot;
  readonly #refs: MessageRefs;
  readonly #deliveryRefs: Map<string, Map<number, number>>;
  readonly #willRefs: Map<string, number>;
  readonly #retainedRefs: Map<string, number>;
  readonly #pending = new PendingChanges();
  readonly #hooks: StoreHooks;
  readonly #commitDelayMs: number;
  /** The ticket of the pending batch, once someone flushed; a commit settles it and starts afresh. */
  #ticket: Ticket | undefined;
  #scheduled: { readonly cancel: () => void } | undefined;
  #lastCommitEnd = Number.NEGATIVE_INFINITY;
  readonly #backoff: { readonly initial: number; readonly max: number };
  readonly #maxPendingBytes: number;
  /** performance.now() before which no commit is tried again (after a failure). */
  #retryAt = 0;
  #pendingBytes = 0;
  #closed = false;

  private constructor(options: SqliteStoreOptions) {
    const { db, file, loaded } = openDatabase(options);
    this.file = file;
    // Commits run on a worker thread, which takes the file over: this connection's exclusive lock
    // has to go first.
    db.close();
    this.#worker = new CommitWorker(file, options.synchronous ?? "full", options.hooks?.probe);
    this.#hooks = options.hooks ?? {};
    this.#commitDelayMs = options.commitDelayMs ?? 0;
    this.#backoff = options.retryBackoffMs ?? { initial: 100, max: 5000 };
    this.#maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.#snapshot = loaded.snapshot;
    this.#refs = new MessageRefs(loaded.nextMessageId);
    for (const [id, message] of loaded.messages) this.#refs.adopt(id, message);
    this.#deliveryRefs = loaded.deliveryRefs;
    this.#willRefs = loaded.willRefs;
    this.#retainedRefs = loaded.retainedRefs;
    const count = (id: number): void => {
      const message = loaded.messages.get(id);
      if (message !== undefined) this.#refs.acquire(message);
    };
    for (const refs of this.#deliveryRefs.values()) for (const id of refs.values()) count(id);
    for (const id of this.#willRefs.values()) count(id);
    for (const id of this.#retainedRefs.values()) count(id);
  }

  /**
   * Opens (or creates) the database in `options.dataDir`. Throws {@link StoreOpenError} for a
   * file it cannot use (see {@link OpenOptions.setAsideCorrupt}).
   */
  static open(options: SqliteStoreOptions): SqliteStore {
    return new SqliteStore(options);
  }

  /**
   * What the file held when it was opened, for `Router.restore` before the first connection.
   * Messages referenced several times are one shared object, as the router had them.
   */
  load(): RouterSnapshot {
    return this.#snapshot;
  }

  /** Estimated bytes of the changes recorded and not yet committed (see `maxPendingBytes`). */
  get pendingBytes(): number {
    return this.#pendingBytes + this.#unconfirmedBytes;
  }

  /** False from a failed commit until the next one succeeds. */
  get healthy(): boolean {
    return this.stats.consecutiveFailures === 0;
  }

  /**
   * False while commits fail or more than `maxPendingBytes` wait uncommitted: new work that needs a
   * commit (a QoS 1/2 publish) should be refused until it is true again.
   */
  get admitting(): boolean {
    return this.healthy && this.pendingBytes <= this.#maxPendingBytes;
  }

  /** Row changes recorded and not yet committed. */
  get pendingOperations(): number {
    return this.#pending.size + this.#unconfirmedOperations;
  }

  /**
   * Resolves once every change recorded before this call is committed; rejects with a
   * `commit-failed` {@link StoreError} if the transaction carrying them failed (they stay pending
   * and the next commit retries them), or `closed` after {@link SqliteStore.close}.
   *
   * One transaction carries everything pending, so every call until that commit gets the same
   * promise (the batch's commit ticket), and a caller holding it waits for every change recorded
   * since as well: a fan-out to many connections, or many copies to one, costs one promise per
   * commit, not one per copy. Nothing pending: an already settled promise, the same every time.
   */
  flush(): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreError("closed", `${this.file} is closed`));
    if (this.#pending.isEmpty && this.#unconfirmed.length === 0) return COMMITTED;
    if (this.#pending.isEmpty && this.#worker.busy) {
      // Everything recorded so far is in the batch in flight.
      this.#inFlightTicket ??= newTicket();
      return this.#inFlightTicket.committed;
    }
    if (this.#ticket === undefined) {
      this.#ticket = newTicket();
      this.#schedule();
    }
    return this.#ticket.committed;
  }

  /** Commits what is pending, then closes the file. Rejects like {@link SqliteStore.flush}, closing anyway. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
      // A change recorded between that commit and here is still owed a write.
      if (!this.#pending.isEmpty) await this.flush();
    } finally {
      this.#scheduled?.cancel();
      this.#scheduled = undefined;
      this.#closed = true;
      await this.#worker.close();
      this.#ticket?.reject(new StoreError("closed", `${this.file} closed before a commit`));
      this.#ticket = undefined;
    }
  }

  // --- RouterStore -------------------------------------------------------------------------

  sessionSaved(record: SessionRecord): void {
    this.#recording();
    this.#pending.saveSession(record);
  }

  sessionDeleted(clientId: string): void {
    this.#recording();
    for (const id of this.#deliveryRefs.get(clientId)?.values() ?? []) this.#release(id);
    this.#deliveryRefs.delete(clientId);
    const will = this.#willRefs.get(clientId);
    if (will !== undefined) this.#release(will);
    this.#willRefs.delete(clientId);
    this.#pending.deleteClient(clientId);
  }

  subscriptionSaved(clientId: string, subscription: SessionSubscription): void {
    this.#recording();
    this.#pending.saveSubscription(clientId, subscription);
  }

  subscriptionDeleted(clientId: string, filter: string): void {
    this.#recording();
    this.#pending.deleteSubscription(clientId, filter);
  }

  deliveryQueued(clientId: string, seq: number, delivery: Delivery): void {
    this.#recording();
    const id = this.#acquire(delivery.message);
    let refs = this.#deliveryRefs.get(clientId);
    if (refs === undefined) {
      refs = new Map();
      this.#deliveryRefs.set(clientId, refs);
    }
    const previous = refs.get(seq);
    refs.set(seq, id);
    this.#pending.queueDelivery(clientId, seq, delivery, id, previous !== undefined);
    if (previous !== undefined) this.#release(previous);
  }

  deliveryRemoved(clientId: string, seq: number): void {
    this.#recording();
    const refs = this.#deliveryRefs.get(clientId);
    const id = refs?.get(seq);
    refs?.delete(seq);
    this.#pending.removeDelivery(clientId, seq);
    if (id !== undefined) this.#release(id);
  }

  deliveryAssigned(clientId: string, seq: number, assigned: Assigned): void {
    this.#recording();
    this.#pending.assignDelivery(clientId, seq, assigned);
  }

  inboundQos2Changed(clientId: string, packetId: number, received: boolean): void {
    this.#recording();
    this.#pending.inboundQos2Changed(clientId, packetId, received);
  }

  retainedChanged(topic: string, message: Message | undefined): void {
    this.#recording();
    const previous = this.#retainedRefs.get(topic);
    if (message === undefined) {
      this.#retainedRefs.delete(topic);
      this.#pending.setRetained(topic, null);
    } else {
      const id = this.#acquire(message);
      this.#retainedRefs.set(topic, id);
      this.#pending.setRetained(topic, id);
    }
    if (previous !== undefined) this.#release(previous);
  }

  willChanged(clientId: string, will: { readonly message: Message; readonly delayMs: number } | undefined): void {
    this.#recording();
    const previous = this.#willRefs.get(clientId);
    if (will === undefined) {
      this.#willRefs.delete(clientId);
      this.#pending.setWill(clientId, null);
    } else {
      const id = this.#acquire(will.message);
      this.#willRefs.set(clientId, id);
      this.#pending.setWill(clientId, { messageId: id, delayMs: will.delayMs });
    }
    if (previous !== undefined) this.#release(previous);
  }

  // --- internals ---------------------------------------------------------------------------

  #acquire(message: Message): number {
    const { id, isNew } = this.#refs.acquire(message);
    if (isNew) {
      this.#pending.insertMessage(id, message);
      this.#pendingBytes += messageBytes(message);
    }
    return id;
  }

  #release(id: number): void {
    if (this.#refs.release(id)) this.#pending.deleteMessage(id);
  }

  // Every change schedules a commit: the broker may await flush() later, or never (a QoS 0
  // delivery's removal still has to reach the file).
  #recording(): void {
    if (this.#closed) throw new StoreError("closed", `${this.file} is closed; a change arrived after close()`);
    this.#pendingBytes += CHANGE_BYTES;
    this.#schedule();
  }

  #schedule(): void {
    // The reply to the batch in flight schedules the next.
    if (this.#scheduled !== undefined || this.#worker.busy) return;
    const now = performance.now();
    // After a failure the retry waits out its backoff, however much is recorded meanwhile.
    const busy = this.#commitDelayMs > 0 && now - this.#lastCommitEnd < this.#commitDelayMs;
    const wait = this.#retryAt > now ? this.#retryAt - now : busy ? this.#commitDelayMs : 0;
    if (wait > 0) {
      const timer = setTimeout(() => { this.#commit(); }, wait);
      this.#scheduled = { cancel: () => { clearTimeout(timer); } };
    } else {
      const immediate = setImmediate(() => { this.#commit(); });
      this.#scheduled = { cancel: () => { clearImmediate(immediate); } };
    }
  }

  // Hands what is pending (after any batch owed a retry) to the worker as one transaction.
  // Changes recorded meanwhile are the difference to the file *after* that batch, so a failed
  // batch is retried first, with the next one, in order.
  // Settles the ticket every flush() since the last one got.
  #commit(): void {
    this.#scheduled = undefined;
    const worker = this.#worker;
    if (worker.busy) return;
    const ticket = this.#ticket;
    this.#ticket = undefined;
    if (!this.#pending.isEmpty) {
      const writes: RowWrites = [];
      rowWrites(this.#pending, writes);
      this.#unconfirmed.push(writes);
      this.#unconfirmedOperations += this.#pending.size;
      this.#unconfirmedBytes += this.#pendingBytes;
      this.#pending.clear();
      this.#pendingBytes = 0;
    }
    if (this.#unconfirmed.length === 0) {
      ticket?.resolve();
      return;
    }
    const operations = this.#unconfirmedOperations;
    const started = performance.now();
    try {
      this.#hooks.beforeCommit?.();
    } catch (cause) {
      this.#failed(ticket, operations, cause);
      return;
    }
    this.#inFlightTicket = ticket;
    void worker.commit(this.#unconfirmed).then((reply: CommitReply) => {
      const settled = this.#inFlightTicket;
      this.#inFlightTicket = undefined;
      if (!reply.ok) {
        this.#failed(settled, operations, new Error(reply.message));
        return;
      }
      this.#unconfirmed.length = 0;
      this.#unconfirmedOperations = 0;
      this.#unconfirmedBytes = 0;
      this.#committed(operations, started);
      settled?.resolve();
      if (!this.#pending.isEmpty || this.#ticket !== undefined) this.#schedule();
    });
  }

  #committed(operations: number, started: number): void {
    this.#retryAt = 0;
    this.stats.commits += 1;
    this.stats.consecutiveFailures = 0;
    this.#lastCommitEnd = performance.now();
    this.#hooks.onCommit?.({ operations, durationMs: this.#lastCommitEnd - started });
  }

  // Counts a failed commit, rejects its ticket and schedules the retry after the backoff.
  #failed(ticket: Ticket | undefined, operations: number, cause: unknown): void {
    this.stats.failures += 1;
    this.stats.consecutiveFailures += 1;
    const backoff = Math.min(this.#backoff.max, this.#backoff.initial * 2 ** (this.stats.consecutiveFailures - 1));
    this.#retryAt = performance.now() + backoff;
    const error = new StoreError("commit-failed", `commit of ${String(operations)} changes to ${this.file} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    ticket?.reject(error);
    this.#schedule(); // the kept changes are still owed a write
  }
}
