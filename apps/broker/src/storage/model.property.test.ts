// Model-based: random router operations with the durable store and the in-memory reference store
// side by side; after reopening the file, the store's snapshot equals the reference's.
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { command, drive, MODEL_TEST_TIMEOUT_MS, type World } from "./model-commands.test-helpers.js";
import { DEFAULT_FILE_NAME } from "./open.js";
import { SqliteStore } from "./sqlite-store.js";
import { newRouter, normalize, referenceStore, tee, useTempDir } from "./store.test-helpers.js";

const dir = useTempDir();

function start(dataDir: string, reference: ReturnType<typeof referenceStore>, now: number, restore: boolean): World<SqliteStore> {
  const store = SqliteStore.open({ dataDir, synchronous: "normal" });
  const { router, clock } = newRouter(tee(store, reference), now);
  if (restore) router.restore(store.load());
  return { store, router, clock, generations: new Map() };
}

describe("SqliteStore against the reference store", () => {
  it("reloads exactly what the reference store holds after any sequence of router operations", { timeout: MODEL_TEST_TIMEOUT_MS }, async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        // Every run (and every shrink step) gets its own file.
        const dataDir = join(dir.path, String(runs++));
        const reference = referenceStore();
        await drive(commands, reference, (ref, now, restore) => Promise.resolve(start(dataDir, ref, now, restore)));
        // No message row outlives its last reference (opening would sweep such leaks away).
        const raw = new Database(join(dataDir, DEFAULT_FILE_NAME), { readonly: true });
        const leaked = raw
          .prepare("SELECT count(*) FROM messages WHERE id NOT IN (SELECT message_id FROM deliveries UNION SELECT message_id FROM wills UNION SELECT message_id FROM retained)")
          .pluck()
          .get();
        raw.close();
        expect(leaked).toBe(0);
        const reopened = SqliteStore.open({ dataDir });
        const loaded = reopened.load();
        await reopened.close();
        expect(normalize(loaded)).toEqual(normalize(reference.snapshot()));
      }),
      // Bounded by runs, not time (see MODEL_TEST_TIMEOUT_MS).
      { numRuns: 100 },
    );
  });
});
