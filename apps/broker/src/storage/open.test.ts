// Opening the file: refusing damaged, foreign, newer or locked files clearly; setting aside on request.
import { randomBytes } from "node:crypto";
import { existsSync, openSync, readdirSync, writeFileSync, writeSync, closeSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { StoreOpenError } from "./errors.js";
import { DEFAULT_FILE_NAME } from "./open.js";
import { SCHEMA_VERSION } from "./schema.js";
import { SqliteStore } from "./sqlite-store.js";
import { message, newRouter, online, sub, useTempDir } from "./store.test-helpers.js";

const dir = useTempDir();
const file = (): string => join(dir.path, DEFAULT_FILE_NAME);

function openError(options: { setAsideCorrupt?: boolean } = {}): StoreOpenError {
  try {
    SqliteStore.open({ dataDir: dir.path, ...options }).close().catch(() => undefined);
  } catch (error) {
    if (error instanceof StoreOpenError) return error;
    throw error;
  }
  throw new Error("the store opened");
}

/** A store file with a few sessions, subscriptions and queued messages in it. */
async function populated(): Promise<void> {
  const store = SqliteStore.open({ dataDir: dir.path });
  const { router } = newRouter(store);
  for (let i = 0; i < 40; i++) {
    const id = `client-${String(i)}`;
    const c = online(router, id, { receiveMaximum: 1 });
    router.subscribe(id, c.generation, [sub(`topic/${String(i)}/#`)]);
  }
  for (let i = 0; i < 400; i++) router.publish(message(`topic/${String(i % 40)}/x`, "p".repeat(200)));
  await store.close();
}

describe("SqliteStore.open", () => {
  it("creates a missing data directory and an empty store", async () => {
    const nested = join(dir.path, "a", "b");
    const store = SqliteStore.open({ dataDir: nested });
    expect(store.load()).toEqual({ sessions: [], retained: [] });
    await store.close();
    expect(existsSync(join(nested, DEFAULT_FILE_NAME))).toBe(true);
  });

  it("refuses a file of random bytes, naming the file", () => {
    writeFileSync(file(), randomBytes(4096));
    const error = openError();
    expect([error.problem, error.file, error.message.includes(file())]).toEqual(["not-sqlite", file(), true]);
  });

  it("moves a file of random bytes aside and starts empty when asked to", async () => {
    const bytes = randomBytes(4096);
    writeFileSync(file(), bytes);
    const warnings: string[] = [];
    const store = SqliteStore.open({ dataDir: dir.path, setAsideCorrupt: true, onWarning: (m) => warnings.push(m) });
    expect(store.load()).toEqual({ sessions: [], retained: [] });
    await store.close();
    const aside = readdirSync(dir.path).filter((name) => name.startsWith(`${DEFAULT_FILE_NAME}.corrupt-`));
    expect(aside.length).toBe(1);
    expect(statSync(join(dir.path, aside[0] ?? "")).size).toBe(bytes.length);
    expect(warnings.length === 1 && warnings[0]?.includes(aside[0] ?? "?")).toBe(true);
  });

  it("refuses the SQLite database of another application", () => {
    const other = new Database(file());
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    other.close();
    expect(openError().problem).toBe("foreign");
  });

  it("leaves another application's database untouched when refusing it", () => {
    const other = new Database(file());
    other.exec("CREATE TABLE notes (body TEXT)");
    other.close();
    const before = statSync(file()).mtimeMs;
    openError();
    expect(statSync(file()).mtimeMs).toBe(before);
  });

  it("refuses a file written by a newer schema even when asked to set damage aside", async () => {
    const store = SqliteStore.open({ dataDir: dir.path });
    await store.close();
    const db = new Database(file());
    db.pragma(`user_version = ${String(SCHEMA_VERSION + 1)}`);
    db.close();
    expect(openError({ setAsideCorrupt: true }).problem).toBe("newer-schema");
  });

  it("refuses a store file with damaged pages", async () => {
    await populated();
    const size = statSync(file()).size;
    const fd = openSync(file(), "r+");
    // Keep the header page; overwrite the rest, where the tables live.
    writeSync(fd, randomBytes(size - 4096), 0, size - 4096, 4096);
    closeSync(fd);
    expect(openError().problem).toBe("corrupt");
  });

  it("refuses a file another store has open", async () => {
    const first = SqliteStore.open({ dataDir: dir.path });
    const { router } = newRouter(first);
    online(router, "c");
    await first.flush();
    const problem = openError().problem;
    await first.close();
    expect(problem).toBe("locked");
  });

  it("reopens its own file with everything in it", async () => {
    await populated();
    const store = SqliteStore.open({ dataDir: dir.path });
    const snapshot = store.load();
    await store.close();
    expect([snapshot.sessions.length, snapshot.sessions.reduce((n, s) => n + s.deliveries.length, 0)]).toEqual([40, 400]);
  });
});
