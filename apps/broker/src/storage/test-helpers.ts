// Test-only helpers for the storage tests (not exported from index.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@handoff/seqlog";
import {
  Router,
  type Assigned,
  type ConnectRequest,
  type Delivery,
  type DeliverySink,
  type Message,
  type OutboundPublish,
  type QoS,
  type RouterStore,
  type SessionRecord,
  type SessionSubscription,
} from "@handoff/mqtt-router";
import Database from "better-sqlite3";
import { afterEach, beforeEach } from "vitest";
import type { RouterSnapshot, SessionSnapshot, StoredDelivery } from "./snapshot.js";

/** A fresh temporary directory per test, removed after it. */
export function useTempDir(): { readonly path: string } {
  const holder = { path: "" };
  beforeEach(() => {
    holder.path = mkdtempSync(join(tmpdir(), "handoff-storage-"));
  });
  afterEach(() => {
    rmSync(holder.path, { recursive: true, force: true });
  });
  return holder;
}

/** Row counts of every table of a closed store's file. */
export function countRows(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    for (const table of ["sessions", "subscriptions", "deliveries", "inbound_qos2", "wills", "retained", "messages"]) {
      counts[table] = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    }
    return counts;
  } finally {
    db.close();
  }
}

/** A sink that records what the router sent. */
export interface RecordingSink extends DeliverySink {
  readonly sent: OutboundPublish[];
  readonly pubrels: number[];
  payloads(): string[];
}

export function recordingSink(): RecordingSink {
  const sent: OutboundPublish[] = [];
  const pubrels: number[] = [];
  return {
    sent,
    pubrels,
    publish(p) {
      sent.push(p);
      return true;
    },
    pubrel(id) {
      pubrels.push(id);
    },
    payloads: () => sent.map((p) => new TextDecoder().decode(p.payload)),
  };
}

export function message(topic: string, payload: string, qos: QoS = 1, extra: Partial<Message> = {}): Message {
  return { topic, payload: new TextEncoder().encode(payload), qos, retain: false, properties: {}, ...extra };
}

export function newRouter(store: RouterStore, start = 1_000_000): { router: Router; clock: ManualClock } {
  const clock = new ManualClock(start);
  return { router: new Router({ clock, store }), clock };
}

/** Connects and binds a client; returns its generation and sink. */
export function online(
  router: Router,
  clientId: string,
  request: Partial<Omit<ConnectRequest, "clientId" | "sink">> = {},
): { generation: number; sink: RecordingSink; sessionPresent: boolean } {
  const sink = recordingSink();
  const outcome = router.connect({ clientId, cleanStart: false, sessionExpiryInterval: 3600, receiveMaximum: 10, protocolVersion: 5, sink, ...request });
  router.bind(clientId, outcome.generation);
  return { generation: outcome.generation, sink, sessionPresent: outcome.sessionPresent };
}

export const sub = (filter: string, qos: QoS = 1) => ({ filter, qos, noLocal: false, retainAsPublished: false, retainHandling: 0 as const });

/** The reference model: keeps in memory exactly what the router reports (as restore.test.ts's). */
export function referenceStore(): RouterStore & { snapshot(): RouterSnapshot } {
  const sessions = new Map<string, SessionRecord>();
  const subs = new Map<string, Map<string, SessionSubscription>>();
  const queues = new Map<string, Map<number, { delivery: Delivery; assigned?: Assigned }>>();
  const qos2 = new Map<string, Set<number>>();
  const wills = new Map<string, { message: Message; delayMs: number }>();
  const retained = new Map<string, Message>();
  const of = <K, V>(map: Map<string, Map<K, V>>, id: string): Map<K, V> => {
    const inner = map.get(id) ?? new Map<K, V>();
    map.set(id, inner);
    return inner;
  };
  return {
    sessionSaved: (r) => void sessions.set(r.clientId, r),
    sessionDeleted: (id) => {
      sessions.delete(id);
      subs.delete(id);
      queues.delete(id);
      qos2.delete(id);
      wills.delete(id);
    },
    subscriptionSaved: (id, s) => void of(subs, id).set(s.filter, s),
    subscriptionDeleted: (id, f) => void of(subs, id).delete(f),
    deliveryQueued: (id, seq, delivery) => void of(queues, id).set(seq, { delivery }),
    deliveryRemoved: (id, seq) => void of(queues, id).delete(seq),
    deliveryAssigned: (id, seq, assigned) => {
      const entry = of(queues, id).get(seq);
      if (entry) entry.assigned = { ...assigned };
    },
    inboundQos2Changed: (id, packetId, received) => {
      const set = qos2.get(id) ?? new Set<number>();
      qos2.set(id, set);
      if (received) set.add(packetId);
      else set.delete(packetId);
    },
    retainedChanged: (topic, m) => {
      if (m) retained.set(topic, m);
      else retained.delete(topic);
    },
    willChanged: (id, will) => {
      if (will) wills.set(id, will);
      else wills.delete(id);
    },
    snapshot: () => ({
      retained: [...retained.values()],
      sessions: [...sessions.values()].map((record): SessionSnapshot => {
        const will = wills.get(record.clientId);
        return {
          record,
          subscriptions: [...(subs.get(record.clientId)?.values() ?? [])],
          deliveries: [...(queues.get(record.clientId)?.entries() ?? [])]
            .sort(([a], [b]) => a - b)
            .map(([seq, e]): StoredDelivery => (e.assigned ? { seq, delivery: e.delivery, assigned: e.assigned } : { seq, delivery: e.delivery })),
          inboundQos2: [...(qos2.get(record.clientId) ?? [])],
          ...(will ? { will } : {}),
        };
      }),
    }),
  };
}

/** Reports every change to several stores, in order. */
export function tee(...stores: readonly RouterStore[]): RouterStore {
  return {
    sessionSaved: (r) => { for (const s of stores) s.sessionSaved(r); },
    sessionDeleted: (id) => { for (const s of stores) s.sessionDeleted(id); },
    subscriptionSaved: (id, sub) => { for (const s of stores) s.subscriptionSaved(id, sub); },
    subscriptionDeleted: (id, f) => { for (const s of stores) s.subscriptionDeleted(id, f); },
    deliveryQueued: (id, seq, d) => { for (const s of stores) s.deliveryQueued(id, seq, d); },
    deliveryRemoved: (id, seq) => { for (const s of stores) s.deliveryRemoved(id, seq); },
    deliveryAssigned: (id, seq, a) => { for (const s of stores) s.deliveryAssigned(id, seq, a); },
    inboundQos2Changed: (id, p, r) => { for (const s of stores) s.inboundQos2Changed(id, p, r); },
    retainedChanged: (t, m) => { for (const s of stores) s.retainedChanged(t, m); },
    willChanged: (id, w) => { for (const s of stores) s.willChanged(id, w); },
  };
}

/** A snapshot in a canonical order, for comparing stores that order unordered sets differently. */
export function normalize(snapshot: RouterSnapshot): RouterSnapshot {
  return {
    retained: [...snapshot.retained].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
    sessions: [...snapshot.sessions]
      .sort((a, b) => (a.record.clientId < b.record.clientId ? -1 : 1))
      .map((s) => ({
        ...s,
        subscriptions: [...s.subscriptions].sort((a, b) => (a.filter < b.filter ? -1 : 1)),
        inboundQos2: [...s.inboundQos2].sort((a, b) => a - b),
      })),
  };
}
