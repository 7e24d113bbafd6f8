/**
 * The database schema and its migrations. `PRAGMA application_id` marks the file as ours;
 * `PRAGMA user_version` is the schema version. A new version appends a migration: never edit one
 * that shipped.
 * @module
 */
import type Database from "better-sqlite3";

/** "HOFF": tells our files apart from any other SQLite database. */
export const APPLICATION_ID = 0x484f4646;

/**
 * Migration N (index N - 1) brings the schema from version N - 1 to N.
 *
 * Messages are stored once and referenced by deliveries, wills and retained topics, so a message
 * fanned out to many sessions costs one payload write; the store deletes a message row when its
 * last reference goes. Child rows carry the client id and are deleted explicitly with their
 * session (no foreign keys: an out-of-order report must not fail a whole commit).
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    topic       TEXT    NOT NULL,
    payload     BLOB    NOT NULL,
    qos         INTEGER NOT NULL,
    retain      INTEGER NOT NULL,
    properties  TEXT,
    expires_at  INTEGER,
    origin      TEXT
  );
  CREATE TABLE sessions (
    client_id       TEXT PRIMARY KEY,
    expiry_interval INTEGER NOT NULL,
    generation      INTEGER NOT NULL,
    disconnected_at INTEGER
  ) WITHOUT ROWID;
  CREATE TABLE subscriptions (
    client_id           TEXT    NOT NULL,
    filter              TEXT    NOT NULL,
    qos                 INTEGER NOT NULL,
    no_local            INTEGER NOT NULL,
    retain_as_published INTEGER NOT NULL,
    retain_handling     INTEGER NOT NULL,
    subscription_id     INTEGER,
    share_group         TEXT,
    share_filter        TEXT,
    PRIMARY KEY (client_id, filter)
  ) WITHOUT ROWID;
  CREATE TABLE deliveries (
    client_id        TEXT    NOT NULL,
    seq              INTEGER NOT NULL,
    message_id       INTEGER NOT NULL,
    qos              INTEGER NOT NULL,
    retain           INTEGER NOT NULL,
    subscription_ids TEXT,
    packet_id        INTEGER,
    phase            TEXT,
    PRIMARY KEY (client_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE inbound_qos2 (
    client_id TEXT    NOT NULL,
    packet_id INTEGER NOT NULL,
    PRIMARY KEY (client_id, packet_id)
  ) WITHOUT ROWID;
  CREATE TABLE wills (
    client_id  TEXT PRIMARY KEY,
    message_id INTEGER NOT NULL,
    delay_ms   INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE retained (
    topic      TEXT PRIMARY KEY,
    message_id INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings a database of ours (or a fresh one) from `from` to {@link SCHEMA_VERSION}, atomically. */
export function migrate(db: Database.Database, from: number): void {
  db.transaction(() => {
    for (let version = from; version < SCHEMA_VERSION; version++) {
      const sql = MIGRATIONS[version];
      if (sql !== undefined) db.exec(sql);
    }
    db.pragma(`application_id = ${String(APPLICATION_ID)}`);
    db.pragma(`user_version = ${String(SCHEMA_VERSION)}`);
  })();
}

/** Deletes rows nothing can reach any more, so the in-memory reference counts start exact. */
export function sweepOrphans(db: Database.Database): void {
  db.transaction(() => {
    for (const table of ["subscriptions", "deliveries", "inbound_qos2", "wills"]) {
      db.prepare(`DELETE FROM ${table} WHERE client_id NOT IN (SELECT client_id FROM sessions)`).run();
    }
    db.prepare(
      `DELETE FROM messages WHERE id NOT IN
         (SELECT message_id FROM deliveries UNION SELECT message_id FROM wills UNION SELECT message_id FROM retained)`,
    ).run();
  })();
}
