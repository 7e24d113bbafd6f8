/**
 * Turns pending changes into row writes: one statement (by its index in {@link WRITER_SQL}) and its
 * parameters per row change, run by the caller inside one transaction, on this thread or on the
 * commit worker (which prepares the same statements). The order keeps every reference valid at
 * the end of it (message rows first, a deleted client's rows before the same client's new rows).
 * @module
 */
import type Database from "better-sqlite3";
import { messageToRow } from "./message-codec.js";
import type { PendingChanges } from "./pending.js";

const CLIENT_TABLES = ["subscriptions", "deliveries", "inbound_qos2", "wills", "sessions"] as const;

/** The writer's statements; a row change names one by its index. */
export const WRITER_SQL: readonly string[] = [
  "INSERT INTO messages (id, topic, payload, qos, retain, properties, expires_at, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  "DELETE FROM messages WHERE id = ?",
  "INSERT OR REPLACE INTO sessions (client_id, expiry_interval, generation, disconnected_at) VALUES (?, ?, ?, ?)",
  `INSERT OR REPLACE INTO subscriptions
     (client_id, filter, qos, no_local, retain_as_published, retain_handling, subscription_id, share_group, share_filter)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  "DELETE FROM subscriptions WHERE client_id = ? AND filter = ?",
  "INSERT OR REPLACE INTO deliveries (client_id, seq, message_id, qos, retain, subscription_ids, packet_id, phase) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  "UPDATE deliveries SET packet_id = ?, phase = ? WHERE client_id = ? AND seq = ?",
  "DELETE FROM deliveries WHERE client_id = ? AND seq = ?",
  "INSERT OR IGNORE INTO inbound_qos2 (client_id, packet_id) VALUES (?, ?)",
  "DELETE FROM inbound_qos2 WHERE client_id = ? AND packet_id = ?",
  "INSERT OR REPLACE INTO wills (client_id, message_id, delay_ms) VALUES (?, ?, ?)",
  "DELETE FROM wills WHERE client_id = ?",
  "INSERT OR REPLACE INTO retained (topic, message_id) VALUES (?, ?)",
  "DELETE FROM retained WHERE topic = ?",
  ...CLIENT_TABLES.map((table) => `DELETE FROM ${table} WHERE client_id = ?`),
];

// Indexes into WRITER_SQL.
const INSERT_MESSAGE = 0;
const DELETE_MESSAGE = 1;
const UPSERT_SESSION = 2;
const UPSERT_SUBSCRIPTION = 3;
const DELETE_SUBSCRIPTION = 4;
const UPSERT_DELIVERY = 5;
const ASSIGN_DELIVERY = 6;
const DELETE_DELIVERY = 7;
const INSERT_QOS2 = 8;
const DELETE_QOS2 = 9;
const UPSERT_WILL = 10;
const DELETE_WILL = 11;
const UPSERT_RETAINED = 12;
const DELETE_RETAINED = 13;
const DELETE_CLIENT = 14;

/** A statement parameter as the driver binds it. */
export type SqlValue = string | number | bigint | Buffer | null;

/**
 * Row writes as a flat list, statement index then its parameters, in order: cheap to build, and
 * what a worker receives in one message.
 */
export type RowWrites = (number | readonly SqlValue[])[];

/** Appends the writes of every pending change to `out` (in the order that keeps references valid). */
export function rowWrites(p: PendingChanges, out: RowWrites): void {
  const w = (statement: number, params: readonly SqlValue[]): void => {
    out.push(statement, params);
  };
  for (const [id, message] of p.messageInserts) {
    const r = messageToRow(message);
    w(INSERT_MESSAGE, [id, r.topic, r.payload as Buffer, r.qos, r.retain, r.properties, r.expires_at, r.origin]);
  }
  for (const clientId of p.clientDeletes) for (let t = 0; t < CLIENT_TABLES.length; t++) w(DELETE_CLIENT + t, [clientId]);
  for (const r of p.sessions.values()) w(UPSERT_SESSION, [r.clientId, r.expiryInterval, r.generation, r.disconnectedAt ?? null]);
  for (const [clientId, subs] of p.subscriptions) {
    for (const [filter, s] of subs) {
      if (s === null) w(DELETE_SUBSCRIPTION, [clientId, filter]);
      else {
        const share = s.share;
        w(UPSERT_SUBSCRIPTION, [clientId, filter, s.qos, s.noLocal ? 1 : 0, s.retainAsPublished ? 1 : 0, s.retainHandling, s.subscriptionId ?? null, share?.group ?? null, share?.filter ?? null]);
      }
    }
  }
  for (const [clientId, changes] of p.deliveries) {
    for (const [seq, change] of changes) {
      switch (change.kind) {
        case "upsert": {
          const d = change.delivery;
          const ids = d.subscriptionIds.length === 0 ? null : JSON.stringify(d.subscriptionIds);
          w(UPSERT_DELIVERY, [clientId, seq, change.messageId, d.qos, d.retain ? 1 : 0, ids, change.assigned?.packetId ?? null, change.assigned?.phase ?? null]);
          break;
        }
        case "assign":
          w(ASSIGN_DELIVERY, [change.assigned.packetId, change.assigned.phase, clientId, seq]);
          break;
        case "delete":
          w(DELETE_DELIVERY, [clientId, seq]);
          break;
        default: {
          const never: never = change;
          throw new Error(`unknown delivery change ${JSON.stringify(never)}`);
        }
      }
    }
  }
  for (const [clientId, ids] of p.inboundQos2) {
    for (const [packetId, received] of ids) w(received ? INSERT_QOS2 : DELETE_QOS2, [clientId, packetId]);
  }
  for (const [clientId, will] of p.wills) {
    if (will === null) w(DELETE_WILL, [clientId]);
    else w(UPSERT_WILL, [clientId, will.messageId, will.delayMs]);
  }
  for (const [topic, id] of p.retained) {
    if (id === null) w(DELETE_RETAINED, [topic]);
    else w(UPSERT_RETAINED, [topic, id]);
  }
  for (const id of p.messageDeletes) w(DELETE_MESSAGE, [id]);
}

/** Runs row writes with statements prepared from {@link WRITER_SQL}. Call inside a transaction. */
export function runWrites(statements: readonly Database.Statement[], writes: RowWrites): void {
  for (let i = 0; i < writes.length; i += 2) {
    const statement = statements[writes[i] as number];
    const params = writes[i + 1] as readonly SqlValue[];
    if (statement === undefined) throw new Error(`no statement ${String(writes[i])}`);
    statement.run(...params);
  }
}
