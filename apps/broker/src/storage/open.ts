/**
 * Opening the database file: checks that it is ours and intact before touching it, migrates it,
 * and sets a damaged file aside only when asked to — never a silent empty start.
 * @module
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { StoreOpenError, type OpenProblem } from "./errors.js";
import { InconsistentDataError, loadAll, type Loaded } from "./loader.js";
import { APPLICATION_ID, SCHEMA_VERSION, migrate, sweepOrphans } from "./schema.js";

/** The database file's name inside the data directory unless configured otherwise. */
export const DEFAULT_FILE_NAME = "handoff-broker.db";

/** How the database file is found and opened. */
export interface OpenOptions {
  /** The data directory; created if missing. */
  readonly dataDir: string;
  /** Default {@link DEFAULT_FILE_NAME}. */
  readonly fileName?: string;
  /**
   * "full" (default): every commit is fsynced before flush() resolves, so an acknowledgement
   * survives a power loss. "normal": WAL commits are fsynced only at checkpoints; a crash of the
   * process loses nothing, a power loss or OS crash may lose the last commits. Several times faster
   * on disks with slow fsync.
   */
  readonly synchronous?: "full" | "normal";
  /**
   * Move a damaged or foreign file to `<file>.corrupt-<timestamp>` (with a warning) and start
   * empty, instead of refusing to start. A file of a newer schema or a locked one is never moved.
   */
  readonly setAsideCorrupt?: boolean;
  /** Where warnings go (default: `process.emitWarning`). */
  readonly onWarning?: (message: string) => void;
}

/** An open, checked and migrated database with its contents read back. */
export interface OpenedDatabase {
  readonly db: Database.Database;
  readonly file: string;
  readonly loaded: Loaded;
}

const HEADER = Buffer.from("SQLite format 3\0", "latin1");
const SET_ASIDE: readonly OpenProblem[] = ["not-sqlite", "corrupt", "foreign"];

/** Opens (creating if needed) the store's database; throws {@link StoreOpenError}. */
export function openDatabase(options: OpenOptions): OpenedDatabase {
  const file = join(options.dataDir, options.fileName ?? DEFAULT_FILE_NAME);
  try {
    mkdirSync(options.dataDir, { recursive: true });
  } catch (error) {
    throw new StoreOpenError(file, "unreadable", `cannot create the data directory: ${describe(error)}`, { cause: error });
  }
  const synchronous = options.synchronous ?? "full";
  try {
    return openChecked(file, synchronous);
  } catch (error) {
    if (!(error instanceof StoreOpenError) || options.setAsideCorrupt !== true || !SET_ASIDE.includes(error.problem)) throw error;
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    setAside(file, aside);
    const warn = options.onWarning ?? ((message: string) => { process.emitWarning(message); });
    warn(`${error.message}; moved it to ${aside} and starting with an empty store`);
    return openChecked(file, synchronous);
  }
}

function setAside(file: string, aside: string): void {
  try {
    renameSync(file, aside);
    // The journal files belong to the damaged file: keep them with it, never apply them to the new one.
    for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  } catch (error) {
    throw new StoreOpenError(file, "unreadable", `cannot move it aside to ${aside}: ${describe(error)}`, { cause: error });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Refuses a file that is not SQLite before the driver sees it: a clear message, and a foreign
// file is never modified.
function checkHeader(file: string): void {
  if (!existsSync(file)) return;
  let size: number;
  const head = Buffer.alloc(HEADER.length);
  try {
    size = statSync(file).size;
    if (size === 0) return;
    const fd = openSync(file, "r");
    try {
      readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new StoreOpenError(file, "unreadable", describe(error), { cause: error });
  }
  if (size < 100 || !head.equals(HEADER)) throw new StoreOpenError(file, "not-sqlite", "the file does not start with the SQLite header");
}

function classify(file: string, error: unknown): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  if (error instanceof InconsistentDataError) return new StoreOpenError(file, "corrupt", error.message, { cause: error });
  if (error instanceof Database.SqliteError) {
    if (error.code === "SQLITE_NOTADB") return new StoreOpenError(file, "not-sqlite", error.message, { cause: error });
    if (error.code.startsWith("SQLITE_CORRUPT")) return new StoreOpenError(file, "corrupt", error.message, { cause: error });
    if (error.code.startsWith("SQLITE_BUSY") || error.code.startsWith("SQLITE_LOCKED")) {
      return new StoreOpenError(file, "locked", "another process has it open (is a second broker using this data directory?)", { cause: error });
    }
  }
  return new StoreOpenError(file, "unreadable", describe(error), { cause: error });
}

function openChecked(file: string, synchronous: "full" | "normal"): OpenedDatabase {
  checkHeader(file);
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0 });
  } catch (error) {
    throw classify(file, error);
  }
  try {
    // Exclusive locking: a second broker on the same file fails to open instead of interleaving.
    db.pragma("locking_mode = EXCLUSIVE");
    const applicationId = db.pragma("application_id", { simple: true }) as number;
    const version = db.pragma("user_version", { simple: true }) as number;
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
    const fresh = applicationId === 0 && version === 0 && tables.n === 0;
    if (!fresh && applicationId !== APPLICATION_ID) {
      throw new StoreOpenError(file, "foreign", `application id ${String(applicationId)} is not the broker's (${String(APPLICATION_ID)})`);
    }
    if (version > SCHEMA_VERSION) {
      throw new StoreOpenError(file, "newer-schema", `schema version ${String(version)} is newer than this broker's ${String(SCHEMA_VERSION)}`);
    }
    if (!fresh) {
      const problems = (db.pragma("quick_check") as { quick_check: string }[]).map((r) => r.quick_check);
      if (problems.length !== 1 || problems[0] !== "ok") {
        throw new StoreOpenError(file, "corrupt", `integrity check failed: ${problems.slice(0, 3).join("; ")}`);
      }
    }
    const mode = db.pragma("journal_mode = WAL", { simple: true }) as string;
    if (mode !== "wal") throw new StoreOpenError(file, "unreadable", `cannot switch to WAL mode (got ${mode})`);
    db.pragma(`synchronous = ${synchronous === "full" ? "FULL" : "NORMAL"}`);
    migrate(db, version);
    sweepOrphans(db);
    return { db, file, loaded: loadAll(db) };
  } catch (error) {
    db.close();
    throw classify(file, error);
  }
}
