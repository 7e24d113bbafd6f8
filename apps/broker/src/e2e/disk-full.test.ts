// Disk full at runtime, over real sockets: while the store's writes fail, QoS 1/2 publishes get
// 0x97 Quota exceeded at once (nothing piles up behind a commit that cannot happen), QoS 0 still
// flows, /health answers 503 and /metrics says why; once writes succeed again, so do publishes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type HttpServer } from "../http/index.js";
import { createBrokerMetrics, observeStore, storageStatus } from "../metrics/index.js";
import { SqliteStore } from "../storage/index.js";
import { collect, outcome, startBroker, until, type Harness } from "./harness.test-helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ harness: Harness; http: HttpServer; base: string; fail: (on: boolean) => void; store: SqliteStore }> {
  const dataDir = mkdtempSync(join(tmpdir(), "handoff-disk-full-"));
  let failing = false;
  const store = SqliteStore.open({
    dataDir,
    synchronous: "normal",
    retryBackoffMs: { initial: 20, max: 100 },
    hooks: {
      beforeCommit: () => {
        if (failing) throw new Error("SQLITE_FULL: database or disk is full");
      },
    },
  });
  const harness = await startBroker({ store, restore: store.load() });
  const metrics = createBrokerMetrics({ processMetrics: false });
  observeStore(metrics.registry, store, () => harness.broker.counters.publishesRefusedStorage);
  const http = createHttpServer({
    host: "127.0.0.1",
    port: 0,
    registry: metrics.registry,
    status: () => ({ connections: harness.broker.connections, storage: storageStatus(store) }),
  });
  const address = await http.listen();
  cleanups.push(async () => {
    failing = false;
    await harness.close();
    await http.close();
    await store.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { harness, http, base: `http://127.0.0.1:${String(address.port)}`, fail: (on) => { failing = on; }, store };
}

describe("disk full at runtime", () => {
  it("refuses QoS 1 and 2 publishes with 0x97 while writes fail, reports it, and recovers", async () => {
    const { harness, base, fail, store } = await setup();
    const sub = await harness.client({ clientId: "sub", clean: false, properties: { sessionExpiryInterval: 3600 } });
    const got = collect(sub);
    await sub.subscribeAsync("t/#", { qos: 1 });
    const pub = await harness.client({ clientId: "pub" });
    const bystander = await harness.client({ clientId: "bystander" });

    fail(true);
    // The first write to fail: a QoS 0 retained message records a change nobody waits for.
    await pub.publishAsync("t/retained", "r", { qos: 0, retain: true });
    await until(() => !store.healthy, 5000, "the first failed commit");

    expect(await outcome(pub.publishAsync("t/a", "q1", { qos: 1 }))).toBe(0x97);
    expect(await outcome(pub.publishAsync("t/a", "q2", { qos: 2 }))).toBe(0x97);
    // QoS 0 needs no commit and still flows; the connections stay up.
    await bystander.publishAsync("t/a", "q0", { qos: 0 });
    await until(() => got.some((g) => g.payload === "q0"), 5000, "the QoS 0 message");
    expect(pub.connected).toBe(true);

    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "storage-unavailable", storage: { ok: false } });
    const scrape = await (await fetch(`${base}/metrics`)).text();
    expect(scrape).toMatch(/^handoff_broker_store_available 0$/m);
    expect(scrape).toMatch(/^handoff_broker_publishes_refused_storage_total 2$/m);
    expect(scrape).toMatch(/^handoff_broker_store_commit_failures_total [1-9]/m);

    fail(false);
    await until(() => store.admitting, 5000, "the store to recover");
    expect(await outcome(pub.publishAsync("t/a", "after", { qos: 1 }))).toBe("ok");
    expect(await outcome(pub.publishAsync("t/a", "after2", { qos: 2 }))).toBe("ok");
    await until(() => got.some((g) => g.payload === "after2"), 5000, "the messages published after recovery");
    expect(got.map((g) => g.payload)).not.toContain("q1");
    expect(got.map((g) => g.payload)).not.toContain("q2");
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
