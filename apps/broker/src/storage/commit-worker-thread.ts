/**
 * The commit worker's thread, started by CommitWorker (commit-worker.ts): its own connection to
 * the database file, the writer's statements prepared once, and for each message one transaction
 * over the batches it carries, answered once it is committed.
 *
 * The module also declares what the threads say to each other; the main thread imports only those
 * types (erased when compiled), so nothing here runs outside the worker.
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { CommitProbe, type HaltPoint } from "./commit-probe.js";
import type { RowWrites } from "./writer.js";

/** What the thread starts with (its `workerData`). */
export interface CommitWorkerData {
  /** The database file, opened, checked and migrated by the main thread and closed there again. */
  readonly file: string;
  /** The writer's statements; a row write names one by its index (see WRITER_SQL). */
  readonly sql: readonly string[];
  readonly synchronous: "FULL" | "NORMAL";
  /** A {@link CommitProbe}'s memory, when a crash test watches the worker. */
  readonly probe?: SharedArrayBuffer;
}

/** A message to the thread: batches (in order) to run in one transaction, or "close". */
export type CommitRequest = readonly RowWrites[] | "close";

/** How one batch ended. */
export type CommitReply = { readonly ok: true } | { readonly ok: false; readonly message: string };

const port = parentPort;
if (port === null) throw new Error("commit-worker-thread.ts runs as a worker thread (started by CommitWorker)");
const data = workerData as CommitWorkerData;
const probe = data.probe === undefined ? undefined : new CommitProbe(data.probe);

const db = new Database(data.file, { timeout: 0 });
db.pragma("locking_mode = EXCLUSIVE");
db.pragma("journal_mode = WAL");
db.pragma(`synchronous = ${data.synchronous}`);
const statements = data.sql.map((sql) => db.prepare(sql));
const begin = db.prepare("BEGIN");
const commit = db.prepare("COMMIT");
const rollback = db.prepare("ROLLBACK");

port.on("message", (request: CommitRequest) => {
  if (request === "close") {
    db.close();
    port.close();
    return;
  }
  const reply = commitBatches(request);
  if (probe === undefined) port.postMessage(reply);
  else probe.answer(() => { port.postMessage(reply); });
});

// One transaction over every batch, in order. The reply leaves only after COMMIT returned: an
// acknowledgement waits for it.
function commitBatches(batches: readonly RowWrites[]): CommitReply {
  const n = probe?.began() ?? 0;
  try {
    begin.run();
    for (const writes of batches) runWrites(writes);
    haltIfArmed(n, "before");
    commit.run();
  } catch (err) {
    if (db.inTransaction) rollback.run();
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  haltIfArmed(n, "after");
  return { ok: true };
}

// A flat list: statement index, then its parameters.
function runWrites(writes: RowWrites): void {
  for (let i = 0; i < writes.length; i += 2) {
    const index = writes[i];
    const params = writes[i + 1];
    const statement = typeof index === "number" ? statements[index] : undefined;
    if (statement === undefined || typeof params !== "object") throw new Error(`malformed row write at ${String(i)}`);
    statement.run(...params);
  }
}

// The crash tests' kill point: the process dies here. The worker stops answering at once; once
// the test buried the process it closes its connection without committing (an open transaction
// rolls back, as a crash loses it) and ends.
function haltIfArmed(n: number, when: HaltPoint): void {
  if (probe?.haltsAt(n, when) !== true) return;
  probe.halt();
  db.close();
  process.exit(0);
}
