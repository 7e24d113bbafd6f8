/**
 * Reads the whole database back: the snapshot the router restores from, and the message
 * references the store keeps counting from.
 * @module
 */
import type { Assigned, Message, QoS, SessionSubscription } from "@handoff/mqtt-router";
import type Database from "better-sqlite3";
import type { RouterSnapshot, SessionSnapshot, StoredDelivery } from "./snapshot.js";
import { rowToMessage, toQoS, type MessageRow } from "./message-codec.js";

/** What the file held: the snapshot, and which message row each reference points at. */
export interface Loaded {
  readonly snapshot: RouterSnapshot;
  /** Message objects by row id, shared by every reference in the snapshot. */
  readonly messages: ReadonlyMap<number, Message>;
  readonly deliveryRefs: Map<string, Map<number, number>>;
  readonly willRefs: Map<string, number>;
  readonly retainedRefs: Map<string, number>;
  /** One above the highest message id. */
  readonly nextMessageId: number;
}

interface SessionRow {
  client_id: string;
  expiry_interval: number;
  generation: number;
  disconnected_at: number | null;
}
interface SubscriptionRow {
  client_id: string;
  filter: string;
  qos: number;
  no_local: number;
  retain_as_published: number;
  retain_handling: number;
  subscription_id: number | null;
  share_group: string | null;
  share_filter: string | null;
}
interface DeliveryRow {
  client_id: string;
  seq: number;
  message_id: number;
  qos: number;
  retain: number;
  subscription_ids: string | null;
  packet_id: number | null;
  phase: string | null;
}

/** Thrown when rows contradict each other (a reference to a missing message, a bad enum). */
export class InconsistentDataError extends Error {
  override readonly name = "InconsistentDataError";
}

function retainHandling(value: number): 0 | 1 | 2 {
  if (value === 0 || value === 1 || value === 2) return value;
  throw new InconsistentDataError(`retain handling ${String(value)}`);
}

function phase(value: string | null, packetId: number | null): Assigned | undefined {
  if (packetId === null) return undefined;
  if (value === "publish" || value === "pubrel") return { packetId, phase: value };
  throw new InconsistentDataError(`delivery phase ${String(value)}`);
}

function toSubscription(row: SubscriptionRow): SessionSubscription {
  return {
    filter: row.filter,
    qos: toQoS(row.qos),
    noLocal: row.no_local !== 0,
    retainAsPublished: row.retain_as_published !== 0,
    retainHandling: retainHandling(row.retain_handling),
    ...(row.subscription_id === null ? {} : { subscriptionId: row.subscription_id }),
    ...(row.share_group === null || row.share_filter === null ? {} : { share: { group: row.share_group, filter: row.share_filter } }),
  };
}

const group = <T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> => {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list === undefined) map.set(k, [row]);
    else list.push(row);
  }
  return map;
};

/** Reads everything. Throws {@link InconsistentDataError} (or the driver's error) on damage. */
export function loadAll(db: Database.Database): Loaded {
  const messages = new Map<number, Message>();
  let nextMessageId = 1;
  for (const row of db.prepare("SELECT * FROM messages").iterate() as IterableIterator<MessageRow & { id: number }>) {
    messages.set(row.id, rowToMessage(row));
    if (row.id >= nextMessageId) nextMessageId = row.id + 1;
  }
  const message = (id: number): Message => {
    const found = messages.get(id);
    if (found === undefined) throw new InconsistentDataError(`message ${String(id)} is referenced but missing`);
    return found;
  };

  const sessions = db.prepare("SELECT * FROM sessions ORDER BY client_id").all() as SessionRow[];
  const subscriptions = group(db.prepare("SELECT * FROM subscriptions ORDER BY client_id, filter").all() as SubscriptionRow[], (r) => r.client_id);
  const deliveries = group(db.prepare("SELECT * FROM deliveries ORDER BY client_id, seq").all() as DeliveryRow[], (r) => r.client_id);
  const qos2 = group(
    db.prepare("SELECT client_id, packet_id FROM inbound_qos2 ORDER BY client_id, packet_id").all() as { client_id: string; packet_id: number }[],
    (r) => r.client_id,
  );
  const willRows = db.prepare("SELECT client_id, message_id, delay_ms FROM wills").all() as { client_id: string; message_id: number; delay_ms: number }[];
  const wills = new Map(willRows.map((w) => [w.client_id, w]));

  const deliveryRefs = new Map<string, Map<number, number>>();
  const willRefs = new Map<string, number>();
  const snapshots = sessions.map((s): SessionSnapshot => {
    const refs = new Map<number, number>();
    deliveryRefs.set(s.client_id, refs);
    const stored = (deliveries.get(s.client_id) ?? []).map((d): StoredDelivery => {
      refs.set(d.seq, d.message_id);
      const assigned = phase(d.phase, d.packet_id);
      const delivery = {
        message: message(d.message_id),
        qos: toQoS(d.qos) satisfies QoS,
        retain: d.retain !== 0,
        subscriptionIds: d.subscription_ids === null ? [] : (JSON.parse(d.subscription_ids) as number[]),
      };
      return assigned === undefined ? { seq: d.seq, delivery } : { seq: d.seq, delivery, assigned };
    });
    const will = wills.get(s.client_id);
    if (will !== undefined) willRefs.set(s.client_id, will.message_id);
    return {
      record: { clientId: s.client_id, expiryInterval: s.expiry_interval, generation: s.generation, disconnectedAt: s.disconnected_at ?? undefined },
      subscriptions: (subscriptions.get(s.client_id) ?? []).map(toSubscription),
      deliveries: stored,
      inboundQos2: (qos2.get(s.client_id) ?? []).map((r) => r.packet_id),
      ...(will === undefined ? {} : { will: { message: message(will.message_id), delayMs: will.delay_ms } }),
    };
  });

  const retainedRefs = new Map<string, number>();
  const retained = (db.prepare("SELECT topic, message_id FROM retained ORDER BY topic").all() as { topic: string; message_id: number }[]).map((r) => {
    retainedRefs.set(r.topic, r.message_id);
    return message(r.message_id);
  });

  return { snapshot: { sessions: snapshots, retained }, messages, deliveryRefs, willRefs, retainedRefs, nextMessageId };
}
