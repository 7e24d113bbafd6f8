/**
 * The SQLite store's commit worker: a thread with its own connection to the file that runs each
 * batch of row writes in one transaction, so the broker's event loop keeps routing (and gathering
 * the next batch) while a commit waits for its fsync. Acknowledgements still wait for the commit
 * that covers them; only the wait moved off the main thread.
 *
 * The worker's code is a short script of its own (the statements come from {@link WRITER_SQL}),
 * run with `eval`, so the same file works from source and from the bundled build.
 * @module
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { WRITER_SQL, type RowWrites } from "./writer.js";

/** How one batch ended. */
export type CommitReply = { readonly ok: true } | { readonly ok: false; readonly message: string };

// CommonJS, run by the worker: opens the file, prepares the statements, then for each message
// runs its batches (the writes of one or more pending batches, in order) in one transaction.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma("locking_mode = EXCLUSIVE");
db.pragma("journal_mode = WAL");
db.pragma("synchronous = " + workerData.synchronous);
const statements = workerData.sql.map((sql) => db.prepare(sql));
const apply = db.transaction((batches) => {
  for (const writes of batches) for (let i = 0; i < writes.length; i += 2) statements[writes[i]].run(...writes[i + 1]);
});
parentPort.on("message", (m) => {
  if (m === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    apply(m);
    parentPort.postMessage({ ok: true });
  } catch (err) {
    parentPort.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
  }
});
`;

/** One commit worker on one database file; one batch in flight at a time. */
export class CommitWorker {
  readonly #worker: Worker;
  #waiting: ((reply: CommitReply) => void) | undefined;
  /** Why the worker is gone (failed to open the file, crashed); every commit fails with it. */
  #dead: string | undefined;
  readonly #exited: Promise<void>;

  /** Starts the worker on `file` (which no other connection of this process may hold open). */
  constructor(file: string, synchronous: "full" | "normal") {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, sql: WRITER_SQL, synchronous: synchronous === "full" ? "FULL" : "NORMAL" } });
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
      this.#worker.postMessage(batches);
    });
  }

  /** Closes the worker's connection (after the batch in flight, if any) and waits for it to exit. */
  async close(): Promise<void> {
    if (this.#dead === undefined) this.#worker.postMessage("close");
    this.#worker.ref();
    await this.#exited;
  }

  #settle(reply: CommitReply): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    this.#worker.unref();
    waiting?.(reply);
  }
}
