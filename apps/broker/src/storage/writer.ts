/**
 * Turns pending changes into row writes: one statement (by its index in {@link WRITER_SQL}) and its
 * parameters per row change, per run of like changes to consecutive rows (a flood's acks), or per
 * chunk of new rows; run inside one transaction by the commit worker, which prepares the same
 * statements. The order keeps every reference valid at the end of it (message rows first, a
 * deleted client's rows before the same client's new rows).
 * @module
 */
import { messageToRow } from "./message-codec.js";
import type { Assigned } from "@handoff/mqtt-router";
import type { DeliveryChange, PendingChanges } from "./pending.js";

const CLIENT_TABLES = ["subscriptions", "deliveries", "inbound_qos2", "wills", "sessions"] as const;

const sql: string[] = [];
const statement = (text: string): number => sql.push(text) - 1;

/** Multi-row inserts take this many rows at a time, largest first; the last is one row. */
const ROW_CHUNKS = [16, 4, 1] as const;
/** A multi-row insert: its statement and how many rows it takes. */
interface Chunk {
  readonly rows: number;
  readonly statement: number;
}
// One statement per chunk size: a batch of many rows binds a few statements, not one per row.
const chunkStatements = (head: string, columns: number): readonly Chunk[] =>
  ROW_CHUNKS.map((rows) => ({ rows, statement: statement(`${head} VALUES ${Array<string>(rows).fill(`(${Array<string>(columns).fill("?").join(", ")})`).join(", ")}`) }));

const MESSAGE_COLUMNS = 8;
const INSERT_MESSAGES = chunkStatements("INSERT INTO messages (id, topic, payload, qos, retain, properties, expires_at, origin)", MESSAGE_COLUMNS);
const DELETE_MESSAGES = statement("DELETE FROM messages WHERE id BETWEEN ? AND ?");
const UPSERT_SESSION = statement("INSERT OR REPLACE INTO sessions (client_id, expiry_interval, generation, disconnected_at) VALUES (?, ?, ?, ?)");
const UPSERT_SUBSCRIPTION = statement(`INSERT OR REPLACE INTO subscriptions
     (client_id, filter, qos, no_local, retain_as_published, retain_handling, subscription_id, share_group, share_filter)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
const DELETE_SUBSCRIPTION = statement("DELETE FROM subscriptions WHERE client_id = ? AND filter = ?");
const DELIVERY_COLUMNS = 8;
const UPSERT_DELIVERIES = chunkStatements("INSERT OR REPLACE INTO deliveries (client_id, seq, message_id, qos, retain, subscription_ids, packet_id, phase)", DELIVERY_COLUMNS);
// A run of consecutive seqs whose packet ids are consecutive too (ids go out in turn): one row
// change per delivery costs a statement each, a flood's run one per batch.
const ASSIGN_DELIVERIES = statement("UPDATE deliveries SET packet_id = seq + ?, phase = ? WHERE client_id = ? AND seq BETWEEN ? AND ?");
const DELETE_DELIVERIES = statement("DELETE FROM deliveries WHERE client_id = ? AND seq BETWEEN ? AND ?");
const INSERT_QOS2 = statement("INSERT OR IGNORE INTO inbound_qos2 (client_id, packet_id) VALUES (?, ?)");
const DELETE_QOS2 = statement("DELETE FROM inbound_qos2 WHERE client_id = ? AND packet_id = ?");
const UPSERT_WILL = statement("INSERT OR REPLACE INTO wills (client_id, message_id, delay_ms) VALUES (?, ?, ?)");
const DELETE_WILL = statement("DELETE FROM wills WHERE client_id = ?");
const UPSERT_RETAINED = statement("INSERT OR REPLACE INTO retained (topic, message_id) VALUES (?, ?)");
const DELETE_RETAINED = statement("DELETE FROM retained WHERE topic = ?");
const DELETE_CLIENT = CLIENT_TABLES.map((table) => statement(`DELETE FROM ${table} WHERE client_id = ?`));

/** The writer's statements; a row write names one by its index. */
export const WRITER_SQL: readonly string[] = sql;

/** A statement parameter as the driver binds it. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/**
 * Row writes as a flat list, statement index then its parameters, in order: cheap to build, and
 * what a worker receives in one message.
 */
export type RowWrites = (number | readonly SqlValue[])[];

type Write = (statement: number, params: readonly SqlValue[]) => void;

/** Appends the writes of every pending change to `out` (in the order that keeps references valid). */
export function rowWrites(p: PendingChanges, out: RowWrites): void {
  const w: Write = (statement, params) => {
    out.push(statement, params);
  };
  const messages: SqlValue[] = [];
  for (const [id, message] of p.messageInserts) {
    const r = messageToRow(message);
    messages.push(id, r.topic, r.payload, r.qos, r.retain, r.properties, r.expires_at, r.origin);
  }
  chunked(INSERT_MESSAGES, MESSAGE_COLUMNS, messages, w);
  for (const clientId of p.clientDeletes) for (const table of DELETE_CLIENT) w(table, [clientId]);
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
  const upserts: SqlValue[] = [];
  for (const [clientId, changes] of p.deliveries) {
    const assigns: number[] = [];
    const deletes: number[] = [];
    for (const [seq, change] of changes) {
      switch (change.kind) {
        case "upsert": {
          const d = change.delivery;
          const ids = d.subscriptionIds.length === 0 ? null : JSON.stringify(d.subscriptionIds);
          upserts.push(clientId, seq, change.messageId, d.qos, d.retain ? 1 : 0, ids, change.assigned?.packetId ?? null, change.assigned?.phase ?? null);
          break;
        }
        case "assign":
          assigns.push(seq);
          break;
        case "delete":
          deletes.push(seq);
          break;
        default: {
          const never: never = change;
          throw new Error(`unknown delivery change ${JSON.stringify(never)}`);
        }
      }
    }
    assignRuns(clientId, changes, assigns, w);
    forRuns(deletes, () => true, (first, last) => {
      w(DELETE_DELIVERIES, [clientId, first, last]);
    });
  }
  // Rows of other seqs than the assigns and deletes above: the order between them is free.
  chunked(UPSERT_DELIVERIES, DELIVERY_COLUMNS, upserts, w);
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
  forRuns([...p.messageDeletes], () => true, (first, last) => {
    w(DELETE_MESSAGES, [first, last]);
  });
}

// Writes the rows in `flat` (`columns` values each) with the fewest multi-row statements.
function chunked(chunks: readonly Chunk[], columns: number, flat: readonly SqlValue[], w: Write): void {
  const rows = flat.length / columns;
  let at = 0;
  for (const { rows: size, statement } of chunks) {
    for (; rows - at >= size; at += size) w(statement, flat.slice(at * columns, (at + size) * columns));
  }
}

/**
 * Sorts `keys` and calls `each` once per run of consecutive integers in which `joins(previous,
 * next)` holds for every neighbour: a run is then one ranged statement.
 */
function forRuns(keys: number[], joins: (previous: number, next: number) => boolean, each: (first: number, last: number) => void): void {
  if (keys.length === 0) return;
  keys.sort((a, b) => a - b);
  let first = keys[0] ?? 0;
  let last = first;
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] ?? 0;
    if (key !== last + 1 || !joins(last, key)) {
      each(first, last);
      first = key;
    }
    last = key;
  }
  each(first, last);
}

// Packet ids (and phases) of consecutive seqs, one statement per run where id - seq is constant.
function assignRuns(clientId: string, changes: ReadonlyMap<number, DeliveryChange>, seqs: number[], w: Write): void {
  const assigned = (seq: number): Assigned | undefined => {
    const change = changes.get(seq);
    return change?.kind === "assign" ? change : undefined;
  };
  const sameRun = (previous: number, next: number): boolean => {
    const a = assigned(previous);
    const b = assigned(next);
    return a !== undefined && b?.phase === a.phase && b.packetId - next === a.packetId - previous;
  };
  forRuns(seqs, sameRun, (first, last) => {
    const a = assigned(first);
    if (a !== undefined) w(ASSIGN_DELIVERIES, [a.packetId - first, a.phase, clientId, first, last]);
  });
}
