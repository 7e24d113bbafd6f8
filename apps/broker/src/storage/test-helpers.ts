// Test-only helpers for the storage tests (not exported from index.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@handoff/seqlog";
import {
  Router,
  SnapshotStore,
  type ConnectRequest,
  type DeliverySink,
  type Message,
  type OutboundPublish,
  type QoS,
  type RouterStore,
} from "@handoff/mqtt-router";
import Database from "better-sqlite3";
import { afterEach, beforeEach } from "vitest";
import type { RouterSnapshot } from "./snapshot.js";

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

/** The reference model: the router package's in-memory SnapshotStore. */
export function referenceStore(): SnapshotStore {
  return new SnapshotStore();
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
