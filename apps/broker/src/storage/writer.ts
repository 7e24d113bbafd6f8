/**
 * Applies pending changes to the database with prepared statements. The caller runs
 * {@link Writer.apply} inside one transaction; the order here keeps every reference valid at the
 * end of it (message rows first, a deleted client's rows before the same client's new rows).
 * @module
 */
import type Database from "better-sqlite3";
import { messageToRow } from "./message-codec.js";
import type { PendingChanges } from "./pending.js";

const CLIENT_TABLES = ["subscriptions", "deliveries", "inbound_qos2", "wills", "sessions"] as const;

/** Prepared statements for every row change. */
export class Writer {
  readonly #insertMessage: Database.Statement;
  readonly #deleteMessage: Database.Statement;
  readonly #deleteClient: readonly Database.Statement[];
  readonly #upsertSession: Database.Statement;
  readonly #upsertSubscription: Database.Statement;
  readonly #deleteSubscription: Database.Statement;
  readonly #upsertDelivery: Database.Statement;
  readonly #assignDelivery: Database.Statement;
  readonly #deleteDelivery: Database.Statement;
  readonly #insertQos2: Database.Statement;
  readonly #deleteQos2: Database.Statement;
  readonly #upsertWill: Database.Statement;
  readonly #deleteWill: Database.Statement;
  readonly #upsertRetained: Database.Statement;
  readonly #deleteRetained: Database.Statement;

  constructor(db: Database.Database) {
    this.#insertMessage = db.prepare(
      `INSERT INTO messages (id, topic, payload, qos, retain, properties, expires_at, origin)
       VALUES (@id, @topic, @payload, @qos, @retain, @properties, @expires_at, @origin)`,
    );
    this.#deleteMessage = db.prepare("DELETE FROM messages WHERE id = ?");
    this.#deleteClient = CLIENT_TABLES.map((table) => db.prepare(`DELETE FROM ${table} WHERE client_id = ?`));
    this.#upsertSession = db.prepare(
      "INSERT OR REPLACE INTO sessions (client_id, expiry_interval, generation, disconnected_at) VALUES (?, ?, ?, ?)",
    );
    this.#upsertSubscription = db.prepare(
      `INSERT OR REPLACE INTO subscriptions
         (client_id, filter, qos, no_local, retain_as_published, retain_handling, subscription_id, share_group, share_filter)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#deleteSubscription = db.prepare("DELETE FROM subscriptions WHERE client_id = ? AND filter = ?");
    this.#upsertDelivery = db.prepare(
      `INSERT OR REPLACE INTO deliveries (client_id, seq, message_id, qos, retain, subscription_ids, packet_id, phase)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#assignDelivery = db.prepare("UPDATE deliveries SET packet_id = ?, phase = ? WHERE client_id = ? AND seq = ?");
    this.#deleteDelivery = db.prepare("DELETE FROM deliveries WHERE client_id = ? AND seq = ?");
    this.#insertQos2 = db.prepare("INSERT OR IGNORE INTO inbound_qos2 (client_id, packet_id) VALUES (?, ?)");
    this.#deleteQos2 = db.prepare("DELETE FROM inbound_qos2 WHERE client_id = ? AND packet_id = ?");
    this.#upsertWill = db.prepare("INSERT OR REPLACE INTO wills (client_id, message_id, delay_ms) VALUES (?, ?, ?)");
    this.#deleteWill = db.prepare("DELETE FROM wills WHERE client_id = ?");
    this.#upsertRetained = db.prepare("INSERT OR REPLACE INTO retained (topic, message_id) VALUES (?, ?)");
    this.#deleteRetained = db.prepare("DELETE FROM retained WHERE topic = ?");
  }

  /** Writes every pending change. Call inside a transaction. */
  apply(p: PendingChanges): void {
    for (const [id, message] of p.messageInserts) this.#insertMessage.run({ id, ...messageToRow(message) });
    for (const clientId of p.clientDeletes) for (const statement of this.#deleteClient) statement.run(clientId);
    for (const r of p.sessions.values()) {
      this.#upsertSession.run(r.clientId, r.expiryInterval, r.generation, r.disconnectedAt ?? null);
    }
    for (const [clientId, subs] of p.subscriptions) {
      for (const [filter, s] of subs) {
        if (s === null) this.#deleteSubscription.run(clientId, filter);
        else {
          this.#upsertSubscription.run(
            clientId,
            filter,
            s.qos,
            s.noLocal ? 1 : 0,
            s.retainAsPublished ? 1 : 0,
            s.retainHandling,
            s.subscriptionId ?? null,
            s.share?.group ?? null,
            s.share?.filter ?? null,
          );
        }
      }
    }
    for (const [clientId, changes] of p.deliveries) {
      for (const [seq, change] of changes) {
        switch (change.kind) {
          case "upsert": {
            const d = change.delivery;
            const ids = d.subscriptionIds.length === 0 ? null : JSON.stringify(d.subscriptionIds);
            this.#upsertDelivery.run(clientId, seq, change.messageId, d.qos, d.retain ? 1 : 0, ids, change.assigned?.packetId ?? null, change.assigned?.phase ?? null);
            break;
          }
          case "assign":
            this.#assignDelivery.run(change.assigned.packetId, change.assigned.phase, clientId, seq);
            break;
          case "delete":
            this.#deleteDelivery.run(clientId, seq);
            break;
          default: {
            const never: never = change;
            throw new Error(`unknown delivery change ${JSON.stringify(never)}`);
          }
        }
      }
    }
    for (const [clientId, ids] of p.inboundQos2) {
      for (const [packetId, received] of ids) (received ? this.#insertQos2 : this.#deleteQos2).run(clientId, packetId);
    }
    for (const [clientId, will] of p.wills) {
      if (will === null) this.#deleteWill.run(clientId);
      else this.#upsertWill.run(clientId, will.messageId, will.delayMs);
    }
    for (const [topic, id] of p.retained) {
      if (id === null) this.#deleteRetained.run(topic);
      else this.#upsertRetained.run(topic, id);
    }
    for (const id of p.messageDeletes) this.#deleteMessage.run(id);
  }
}
