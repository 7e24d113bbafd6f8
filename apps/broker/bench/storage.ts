// Storage benchmark: QoS 1 throughput through the Router with the durable SQLite store against the
// memory-only store. Each event-loop turn publishes a batch, then awaits the commit covering it
// (when the broker would send the PUBACKs); the subscriber's PUBACKs for that batch arrive in the
// next turn, so every commit holds one batch of inserts plus the previous batch's deletes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Router, memoryOnlyStore, type DeliverySink, type Message, type RouterStore } from "@handoff/mqtt-router";
import { ManualClock } from "@handoff/seqlog";
import { SqliteStore } from "../src/storage/index.js";
import { printTable } from "./report.js";

type StoreKind = "memory" | "sqlite FULL" | "sqlite NORMAL";
const KINDS: readonly StoreKind[] = ["memory", "sqlite FULL", "sqlite NORMAL"];
const MEASURE_MS = 1000;
const WARMUP_MS = 250;

interface Harness {
  readonly store: RouterStore;
  /** Resolves when the changes so far are durable (the memory store: the next turn). */
  readonly commit: () => Promise<void>;
  readonly close: () => Promise<void>;
  readonly commits: () => number;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function harness(kind: StoreKind, dir: string): Harness {
  if (kind === "memory") return { store: memoryOnlyStore, commit: nextTurn, close: () => Promise.resolve(), commits: () => 0 };
  const store = SqliteStore.open({ dataDir: dir, synchronous: kind === "sqlite FULL" ? "full" : "normal" });
  return { store, commit: () => store.flush(), close: () => store.close(), commits: () => store.stats.commits };
}

function collecting(): DeliverySink & { ids: number[] } {
  const sink = {
    ids: [] as number[],
    publish: (p: { readonly packetId?: number }) => {
      if (p.packetId !== undefined) sink.ids.push(p.packetId);
      return true;
    },
    pubrel: () => undefined,
  };
  return sink;
}

interface Result {
  readonly publishesPerSec: number;
  readonly commitsPerSec: number;
}

/**
 * `publishers` topics, `subscribers` sessions each subscribed to the wildcard, QoS 1 everywhere;
 * `batch` publishes per turn for {@link MEASURE_MS}.
 */
async function run(kind: StoreKind, options: { readonly publishers: number; readonly subscribers: number; readonly batch: number; readonly payloadBytes: number }): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), "handoff-bench-storage-"));
  const h = harness(kind, dir);
  try {
    const router = new Router({ clock: new ManualClock(), store: h.store, queueLimits: { maxCount: 1_000_000, maxBytes: 1 << 30 } });
    const sinks: { readonly id: string; readonly generation: number; readonly sink: ReturnType<typeof collecting> }[] = [];
    for (let s = 0; s < options.subscribers; s++) {
      const id = `sub${String(s)}`;
      const sink = collecting();
      const { generation } = router.connect({ clientId: id, cleanStart: true, sessionExpiryInterval: 3600, receiveMaximum: 65535, protocolVersion: 5, sink });
      router.bind(id, generation);
      router.subscribe(id, generation, [{ filter: "fanin/+/data", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
      sinks.push({ id, generation, sink });
    }
    await h.commit();
    const payload = new Uint8Array(options.payloadBytes);
    const templates: Message[] = Array.from({ length: options.publishers }, (_, i) => ({
      topic: `fanin/${String(i)}/data`,
      payload,
      qos: 1,
      retain: false,
      properties: {},
      origin: `pub${String(i)}`,
    }));
    let k = 0;
    // Runs the publish/commit/ack loop for `ms`; returns how many publishes it made.
    const loop = async (ms: number): Promise<number> => {
      let published = 0;
      const started = performance.now();
      while (performance.now() - started < ms) {
        // The subscribers' PUBACKs for the previous batch.
        for (const { id, generation, sink } of sinks) {
          for (const packetId of sink.ids.splice(0)) router.acknowledge(id, generation, packetId);
        }
        for (let j = 0; j < options.batch; j++) {
          const template = templates[k++ % templates.length];
          // A new object per PUBLISH, as the broker decodes one per packet.
          if (template !== undefined) router.publish({ ...template });
        }
        published += options.batch;
        await h.commit();
      }
      return published;
    };
    await loop(WARMUP_MS);
    const commitsBefore = h.commits();
    const started = performance.now();
    const published = await loop(MEASURE_MS);
    const seconds = (performance.now() - started) / 1000;
    return { publishesPerSec: published / seconds, commitsPerSec: (h.commits() - commitsBefore) / seconds };
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

/** Prints QoS 1 throughput with the durable store and the memory-only store, side by side. */
export async function benchStorage(): Promise<void> {
  const scenarios = [
    ...[1, 10, 100, 1000].map((batch) => ({ name: `fan-in 1000->1, ${String(batch)}/turn`, publishers: 1000, subscribers: 1, batch, payloadBytes: 32 })),
    { name: "fan-out 1->100 (1 KiB), 10/turn", publishers: 1, subscribers: 100, batch: 10, payloadBytes: 1024 },
  ];
  const rows: string[][] = [["scenario (QoS 1, commit per turn)", ...KINDS.map((k) => `${k} pub/s`), "FULL commits/s", "FULL vs memory"]];
  for (const scenario of scenarios) {
    const results = new Map<StoreKind, Result>();
    for (const kind of KINDS) results.set(kind, await run(kind, scenario));
    const memory = results.get("memory")?.publishesPerSec ?? 0;
    const full = results.get("sqlite FULL");
    rows.push([
      scenario.name,
      ...KINDS.map((kind) => int(results.get(kind)?.publishesPerSec ?? 0)),
      int(full?.commitsPerSec ?? 0),
      memory > 0 && full !== undefined ? `${((full.publishesPerSec / memory) * 100).toFixed(1)}%` : "-",
    ]);
  }
  printTable(`storage: QoS 1 publishes/s through the Router, durable store vs memory only (data dir under ${tmpdir()})`, rows);
}
