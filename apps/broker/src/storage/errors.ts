/**
 * The errors the durable store surfaces: one for opening the file, one for everything after.
 * @module
 */

/** What is wrong with a database file the store refused to open. */
export type OpenProblem =
  /** The file does not start with the SQLite header: not a database at all. */
  | "not-sqlite"
  /** SQLite reports damage (integrity check failed, or a read hit a corrupt page). */
  | "corrupt"
  /** A valid SQLite database of some other application (wrong application id or tables). */
  | "foreign"
  /** Written by a newer broker with a schema this one does not know; never set aside. */
  | "newer-schema"
  /** Another process holds the database (a second broker on the same data directory). */
  | "locked"
  /** The file or directory could not be read or created (permissions, a directory in the way). */
  | "unreadable";

/**
 * The store could not open its file. The message names the file and the problem; the broker
 * should print it and exit rather than start with an empty state.
 */
export class StoreOpenError extends Error {
  /** Tells it from other errors. */
  override readonly name = "StoreOpenError";
  /** The database file's path. */
  readonly file: string;
  /** What is wrong with the file, for the app to act on. */
  readonly problem: OpenProblem;

  constructor(file: string, problem: OpenProblem, detail: string, options?: ErrorOptions) {
    super(`storage: cannot open ${file}: ${problem}: ${detail}`, options);
    this.file = file;
    this.problem = problem;
  }
}

/** Why a store operation failed after opening. */
export type StoreErrorKind =
  /** The transaction holding the changes failed and rolled back; the changes stay pending. */
  | "commit-failed"
  /** The store was used after {@link SqliteStore.close}. */
  | "closed";

/**
 * A store operation failed. A `commit-failed` error means nothing the awaited flush covered is on
 * disk: the acknowledgements waiting for it must not be sent.
 */
export class StoreError extends Error {
  override readonly name = "StoreError";
  readonly kind: StoreErrorKind;

  constructor(kind: StoreErrorKind, message: string, options?: ErrorOptions) {
    super(`storage: ${message}`, options);
    this.kind = kind;
  }
}
