// Test-only helpers for the storage tests (not exported from index.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@handoff/seqlog";
import { Router, SnapshotStore, type RouterStore } from "@handoff/mqtt-router";
import Database from "better-sqlite3";
import { afterEach, beforeEach } from "vitest";
import type { RouterSnapshot } from "./snapshot.js";
import { SqliteStore, type CommitInfo } from "./sqlite-store.js";

// The router's own test helpers (of the package's tests, not its API), so each exists once.
export { message, online, recordingSink, sub, type RecordingSink } from "@handoff/mqtt-router/testing";

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

/** A store in `dataDir` that records its commits; `fail` returning true makes a commit fail. */
export function openCounting(dataDir: string, options: { readonly fail?: () => boolean } = {}): { store: SqliteStore; commits: CommitInfo[] } {
  const commits: CommitInfo[] = [];
  const store = SqliteStore.open({
    dataDir,
    hooks: {
      onCommit: (info) => commits.push(info),
      beforeCommit: () => {
        if (options.fail?.() === true) throw new Error("injected write failure");
      },
    },
  });
  return { store, commits };
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

/** A router that reports to `store`, on a manual clock at `start`. */
export function newRouter(store: RouterStore, start = 1_000_000): { router: Router; clock: ManualClock } {
  const clock = new ManualClock(start);
  return { router: new Router({ clock, store }), clock };
}

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
