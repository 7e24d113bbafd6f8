// A session that ends with its connection ends with the process too, so the durable store never
// writes its queue: a flood to clean-session subscribers costs no commit, while the same flood to
// a persistent session is written as ever. Real SQLite, real MQTT.js clients.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../storage/index.js";
import { collect, startBroker, until, type Harness } from "./harness.test-helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The broker, and the row changes its store committed so far. */
async function setup(): Promise<{ harness: Harness; rows: () => number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "handoff-clean-writes-"));
  let rows = 0;
  const store = SqliteStore.open({ dataDir, synchronous: "normal", hooks: { onCommit: (info) => (rows += info.operations) } });
  const harness = await startBroker({ store, restore: store.load() });
  cleanups.push(async () => {
    await harness.close();
    await store.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { harness, rows: () => rows };
}

// Every client waits for its own acknowledgements, which wait for commits: once they are all in,
// nothing is left to commit but what a later change records.
async function publishAll(harness: Harness, topic: string, n: number): Promise<void> {
  const pub = await harness.client({ clientId: `pub-${topic}` });
  await Promise.all(Array.from({ length: n }, (_, i) => pub.publishAsync(topic, `m${String(i)}`, { qos: 1 })));
  await pub.endAsync();
}

describe("clean sessions and the durable store", () => {
  it("writes nothing for QoS 1 messages to a clean-session subscriber, and writes them for a persistent one", async () => {
    const { harness, rows } = await setup();
    const clean = await harness.client({ clientId: "clean", clean: true });
    const cleanGot = collect(clean);
    await clean.subscribeAsync("clean/t", { qos: 1 });
    const kept = await harness.client({ clientId: "kept", clean: true, properties: { sessionExpiryInterval: 3600 } });
    const keptGot = collect(kept);
    await kept.subscribeAsync("kept/t", { qos: 1 });
    // The publisher's own CONNECT and DISCONNECT are its session's rows: counted apart.
    await publishAll(harness, "warm-up", 1);
    await until(() => harness.broker.connections === 2, 5000, "the warm-up publisher gone");
    const before = rows();

    await publishAll(harness, "clean/t", 50);
    await until(() => cleanGot.length === 50, 5000, "the clean subscriber's 50 messages");
    await until(() => harness.broker.connections === 2, 5000, "the publisher gone");
    const afterClean = rows();
    // Only the publisher's own rows: its session claimed, then ended (a handful of row changes).
    expect(afterClean - before).toBeLessThan(10);

    await publishAll(harness, "kept/t", 50);
    await until(() => keptGot.length === 50, 5000, "the persistent subscriber's 50 messages");
    // Each message and its copy are stored before the copy goes out (their acknowledgements are
    // later commits' ranged deletes): a hundred rows at least.
    expect(rows() - afterClean).toBeGreaterThanOrEqual(100);
  });
});
