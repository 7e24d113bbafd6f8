/**
 * The SQLite store's commit worker: a thread with its own connection to the file that runs each
 * batch of row writes in one transaction, so the broker's event loop keeps routing (and gathering
 * the next batch) while a commit waits for its fsync. Acknowledgements still wait for the commit
 * that covers them; only the wait moved off the main thread.
 *
 * The thread's code is the module commit-worker-thread.ts; commit-worker-start.ts starts it.
 * @module
 */
import type { Worker } from "node:worker_threads";
import type { CommitProbe } from "./commit-probe.js";
import { startCommitThread } from "./commit-worker-start.js";
import type { CommitReply, CommitRequest, CommitWorkerData } from "./commit-worker-thread.js";
import { WRITER_SQL, type RowWrites } from "./writer.js";

export type { CommitReply } from "./commit-worker-thread.js";

/** One commit worker on one database file; one batch in flight at a time. */
export class CommitWorker {
  readonly #worker: Worker;
  #waiting: ((reply: CommitReply) => void) | undefined;
  /** Why the worker is gone (failed to open the file, crashed); every commit fails with it. */
  #dead: string | undefined;
  readonly #exited: Promise<void>;
  readonly #probe: CommitProbe | undefined;

  /**
   * Starts the worker on `file` (which no other connection of this process may hold open);
   * `probe` lets a crash test watch and halt it.
   */
  constructor(file: string, synchronous: "full" | "normal", probe?: CommitProbe) {
    this.#probe = probe;
    const data: CommitWorkerData = { file, sql: WRITER_SQL, synchronous: synchronous === "full" ? "FULL" : "NORMAL", ...(probe === undefined ? {} : { probe: probe.buffer }) };
    this.#worker = startCommitThread(data);
    this.#worker.unref(); // idle, it keeps nothing alive; a commit in flight does
    this.#worker.on("message", (reply: CommitReply) => {
      this.#settle(reply);
    });
    this.#worker.on("error", (err) => {
      this.#dead = `commit worker failed: ${err.message}`;
      this.#settle({ ok: false, message: this.#dead });
    });
    this.#exited = new Promise((resolve) => {
      this.#worker.once("exit", () => {
        this.#dead ??= "commit worker exited";
        this.#settle({ ok: false, message: this.#dead });
        resolve();
      });
    });
  }

  /** True while a batch is in flight. */
  get busy(): boolean {
    return this.#waiting !== undefined;
  }

  /** Runs `batches` (in order) in one transaction. One at a time: call when not {@link busy}. */
  commit(batches: readonly RowWrites[]): Promise<CommitReply> {
    if (this.#dead !== undefined) return Promise.resolve({ ok: false, message: this.#dead });
    if (this.#waiting !== undefined) throw new Error("a commit is in flight");
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.#worker.ref();
      this.#post(batches);
      this.#probe?.handedOver();
    });
  }

  /** Closes the worker's connection (after the batch in flight, if any) and waits for it to exit. */
  async close(): Promise<void> {
    if (this.#dead === undefined) this.#post("close");
    this.#worker.ref();
    await this.#exited;
  }

  // Typed: what the thread reads.
  #post(request: CommitRequest): void {
    this.#worker.postMessage(request);
  }

  #settle(reply: CommitReply): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    this.#worker.unref();
    waiting?.(reply);
  }
}
