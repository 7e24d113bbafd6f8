/**
 * The changes recorded since the last commit, coalesced to the net difference from what the file
 * holds: a delivery queued and removed before the commit never reaches the disk, a delivery queued
 * and then given its packet id is one insert, a message whose last reference went in the same
 * batch is never written. Knows nothing of SQL; the writer applies it.
 * @module
 */
import type { Assigned, Delivery, Message, SessionRecord, SessionSubscription } from "@handoff/mqtt-router";

/** The net change to one delivery row. */
export type DeliveryChange =
  /** Write the whole row; `replaces`: a row may exist on disk for this seq already. */
  | { readonly kind: "upsert"; readonly delivery: Delivery; readonly messageId: number; assigned: Assigned | undefined; readonly replaces: boolean }
  /** Only the packet id / phase of a stored row changed (a copy: the router mutates its own). */
  | ({ readonly kind: "assign" } & Assigned)
  | { readonly kind: "delete" };

// Every delete is alike: one shared change, not an object per acknowledged delivery.
const DELETE: DeliveryChange = { kind: "delete" };

/** A will row's new content, or null to delete it. */
export type WillChange = { readonly messageId: number; readonly delayMs: number } | null;

const of = <K, V>(map: Map<string, Map<K, V>>, key: string): Map<K, V> => {
  let inner = map.get(key);
  if (inner === undefined) {
    inner = new Map<K, V>();
    map.set(key, inner);
  }
  return inner;
};

/** Pending changes, by row. */
export class PendingChanges {
  /** Message rows to insert, by id. */
  readonly messageInserts = new Map<number, Message>();
  /** Message rows to delete (stored ones only). */
  readonly messageDeletes = new Set<number>();
  /** Clients whose every stored row goes first (applied before the upserts below). */
  readonly clientDeletes = new Set<string>();
  readonly sessions = new Map<string, SessionRecord>();
  /** Subscription to write, or null to delete, by client then filter. */
  readonly subscriptions = new Map<string, Map<string, SessionSubscription | null>>();
  readonly deliveries = new Map<string, Map<number, DeliveryChange>>();
  /** True: insert the id; false: delete it. By client then packet id. */
  readonly inboundQos2 = new Map<string, Map<number, boolean>>();
  readonly wills = new Map<string, WillChange>();
  /** Retained message id, or null to delete, by topic. */
  readonly retained = new Map<string, number | null>();

  /** True when a commit would write nothing. */
  get isEmpty(): boolean {
    return (
      this.messageInserts.size === 0 &&
      this.messageDeletes.size === 0 &&
      this.clientDeletes.size === 0 &&
      this.sessions.size === 0 &&
      this.subscriptions.size === 0 &&
      this.deliveries.size === 0 &&
      this.inboundQos2.size === 0 &&
      this.wills.size === 0 &&
      this.retained.size === 0
    );
  }

  /** How many row changes are pending (each client delete counts once). */
  get size(): number {
    let n = this.messageInserts.size + this.messageDeletes.size + this.clientDeletes.size + this.sessions.size;
    n += this.wills.size + this.retained.size;
    for (const m of this.subscriptions.values()) n += m.size;
    for (const m of this.deliveries.values()) n += m.size;
    for (const m of this.inboundQos2.values()) n += m.size;
    return n;
  }

  /** Forgets everything (after a successful commit). */
  clear(): void {
    this.messageInserts.clear();
    this.messageDeletes.clear();
    this.clientDeletes.clear();
    this.sessions.clear();
    this.subscriptions.clear();
    this.deliveries.clear();
    this.inboundQos2.clear();
    this.wills.clear();
    this.retained.clear();
  }

  insertMessage(id: number, message: Message): void {
    this.messageInserts.set(id, message);
  }

  /** A message row lost its last reference: never written if it was still pending. */
  deleteMessage(id: number): void {
    if (!this.messageInserts.delete(id)) this.messageDeletes.add(id);
  }

  /** A session ended: its stored rows go, and what was pending for it is moot. */
  deleteClient(clientId: string): void {
    this.clientDeletes.add(clientId);
    this.sessions.delete(clientId);
    this.subscriptions.delete(clientId);
    this.deliveries.delete(clientId);
    this.inboundQos2.delete(clientId);
    this.wills.delete(clientId);
  }

  saveSession(record: SessionRecord): void {
    this.sessions.set(record.clientId, record);
  }

  saveSubscription(clientId: string, subscription: SessionSubscription): void {
    of(this.subscriptions, clientId).set(subscription.filter, subscription);
  }

  deleteSubscription(clientId: string, filter: string): void {
    of(this.subscriptions, clientId).set(filter, null);
  }

  /** `known`: the delivery existed (stored or pending) before this call. */
  queueDelivery(clientId: string, seq: number, delivery: Delivery, messageId: number, known: boolean): void {
    const changes = of(this.deliveries, clientId);
    const previous = changes.get(seq);
    const replaces = previous === undefined ? known : previous.kind !== "upsert" || previous.replaces;
    changes.set(seq, { kind: "upsert", delivery, messageId, assigned: undefined, replaces });
  }

  /** `assigned` is copied (the router changes its own in place later, at PUBREC). */
  assignDelivery(clientId: string, seq: number, assigned: Assigned): void {
    const changes = of(this.deliveries, clientId);
    const previous = changes.get(seq);
    const { packetId, phase } = assigned;
    if (previous?.kind === "upsert") previous.assigned = { packetId, phase };
    else if (previous?.kind !== "delete") changes.set(seq, { kind: "assign", packetId, phase });
  }

  removeDelivery(clientId: string, seq: number): void {
    const changes = of(this.deliveries, clientId);
    const previous = changes.get(seq);
    if (previous?.kind === "upsert" && !previous.replaces) {
      changes.delete(seq);
      if (changes.size === 0) this.deliveries.delete(clientId);
    } else changes.set(seq, DELETE);
  }

  inboundQos2Changed(clientId: string, packetId: number, received: boolean): void {
    of(this.inboundQos2, clientId).set(packetId, received);
  }

  setWill(clientId: string, will: WillChange): void {
    this.wills.set(clientId, will);
  }

  setRetained(topic: string, messageId: number | null): void {
    this.retained.set(topic, messageId);
  }
}
