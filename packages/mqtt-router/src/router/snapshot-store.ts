/**
 * An in-memory {@link RouterStore} that keeps exactly what a durable store must keep, and hands it
 * back as a {@link RouterSnapshot}: the reference a durable store is checked against, and a way to
 * test restart recovery without a disk.
 * @module
 */
import type { Delivery, Message } from "./message.js";
import type { Assigned } from "./mqtt-session.js";
import type { RouterSnapshot, RouterStore, SessionRecord, SessionSnapshot, StoredDelivery } from "./store.js";
import type { SessionSubscription } from "./subscription.js";

function inner<K, V>(map: Map<string, Map<K, V>>, id: string): Map<K, V> {
  let found = map.get(id);
  if (found === undefined) {
    found = new Map<K, V>();
    map.set(id, found);
  }
  return found;
}

/** Keeps the durable state the router reports, in memory. */
export class SnapshotStore implements RouterStore {
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #subscriptions = new Map<string, Map<string, SessionSubscription>>();
  readonly #deliveries = new Map<string, Map<number, { delivery: Delivery; assigned?: Assigned }>>();
  readonly #qos2 = new Map<string, Map<number, true>>();
  readonly #wills = new Map<string, { readonly message: Message; readonly delayMs: number }>();
  readonly #retained = new Map<string, Message>();

  /** Keeps `record` as the session's current record. */
  sessionSaved(record: SessionRecord): void {
    this.#sessions.set(record.clientId, record);
  }

  /** Drops the session and everything kept for it. */
  sessionDeleted(clientId: string): void {
    this.#sessions.delete(clientId);
    this.#subscriptions.delete(clientId);
    this.#deliveries.delete(clientId);
    this.#qos2.delete(clientId);
    this.#wills.delete(clientId);
  }

  /** Keeps the subscription, replacing one with the same filter. */
  subscriptionSaved(clientId: string, subscription: SessionSubscription): void {
    inner(this.#subscriptions, clientId).set(subscription.filter, subscription);
  }

  /** Forgets the session's subscription to `filter`. */
  subscriptionDeleted(clientId: string, filter: string): void {
    inner(this.#subscriptions, clientId).delete(filter);
  }

  /** Keeps the delivery under `seq`, not yet assigned a packet id. */
  deliveryQueued(clientId: string, seq: number, delivery: Delivery): void {
    inner(this.#deliveries, clientId).set(seq, { delivery });
  }

  /** Forgets the delivery under `seq`. */
  deliveryRemoved(clientId: string, seq: number): void {
    inner(this.#deliveries, clientId).delete(seq);
  }

  /** Records the packet id and phase of the delivery under `seq`. */
  deliveryAssigned(clientId: string, seq: number, assigned: Assigned): void {
    const entry = inner(this.#deliveries, clientId).get(seq);
    // A copy: the router mutates its own object when the phase moves on.
    if (entry !== undefined) entry.assigned = { ...assigned };
  }

  /** Adds or removes an inbound QoS 2 packet id. */
  inboundQos2Changed(clientId: string, packetId: number, received: boolean): void {
    const ids = inner(this.#qos2, clientId);
    if (received) ids.set(packetId, true);
    else ids.delete(packetId);
  }

  /** Keeps or deletes the topic's retained message. */
  retainedChanged(topic: string, message: Message | undefined): void {
    if (message === undefined) this.#retained.delete(topic);
    else this.#retained.set(topic, message);
  }

  /** Keeps or drops the session's armed will. */
  willChanged(clientId: string, will: { readonly message: Message; readonly delayMs: number } | undefined): void {
    if (will === undefined) this.#wills.delete(clientId);
    else this.#wills.set(clientId, will);
  }

  /** Everything kept, as `Router.restore` takes it back (deliveries in `seq` order). */
  snapshot(): RouterSnapshot {
    const sessions = [...this.#sessions.values()].map((record): SessionSnapshot => {
      const will = this.#wills.get(record.clientId);
      const deliveries = [...(this.#deliveries.get(record.clientId)?.entries() ?? [])]
        .sort(([a], [b]) => a - b)
        .map(([seq, e]): StoredDelivery => (e.assigned === undefined ? { seq, delivery: e.delivery } : { seq, delivery: e.delivery, assigned: e.assigned }));
      return {
        record,
        subscriptions: [...(this.#subscriptions.get(record.clientId)?.values() ?? [])],
        deliveries,
        inboundQos2: [...(this.#qos2.get(record.clientId)?.keys() ?? [])],
        ...(will === undefined ? {} : { will }),
      };
    });
    return { sessions, retained: [...this.#retained.values()] };
  }
}
