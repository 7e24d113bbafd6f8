// Ranged row writes: a run of like changes to consecutive rows is one statement, and only the rows
// of the run are touched (gaps, packet id wraps and phase changes split it).
import { describe, expect, it } from "vitest";
import { PendingChanges } from "./pending.js";
import { SqliteStore } from "./sqlite-store.js";
import { message, useTempDir } from "./store.test-helpers.js";
import { rowWrites, WRITER_SQL, type RowWrites } from "./writer.js";

const dir = useTempDir();

/** The writes as [SQL, params] pairs. */
function statements(p: PendingChanges): [string, readonly unknown[]][] {
  const out: RowWrites = [];
  rowWrites(p, out);
  const pairs: [string, readonly unknown[]][] = [];
  for (let i = 0; i < out.length; i += 2) {
    const sql = WRITER_SQL[out[i] as number] ?? "";
    pairs.push([sql, out[i + 1] as readonly unknown[]]);
  }
  return pairs;
}

describe("rowWrites", () => {
  it("deletes a run of consecutive deliveries and messages with one statement each", () => {
    const p = new PendingChanges();
    for (const seq of [7, 5, 6, 8]) p.removeDelivery("c", seq);
    for (const id of [12, 10, 11]) p.deleteMessage(id);
    expect(statements(p)).toEqual([
      ["DELETE FROM deliveries WHERE client_id = ? AND seq BETWEEN ? AND ?", ["c", 5, 8]],
      ["DELETE FROM messages WHERE id BETWEEN ? AND ?", [10, 12]],
    ]);
  });

  it("inserts many rows with a few multi-row statements", () => {
    const p = new PendingChanges();
    for (let id = 1; id <= 21; id++) p.insertMessage(id, message("t", "m"));
    for (let seq = 1; seq <= 6; seq++) p.queueDelivery("c", seq, { message: message("t", "m"), qos: 1, retain: false, subscriptionIds: [] }, seq, false);
    const rows = (sql: string): number => sql.split("), (").length;
    expect(statements(p).map(([sql, params]) => [/INTO (\w+)/.exec(sql)?.[1], rows(sql), params.length])).toEqual([
      ["messages", 16, 16 * 8],
      ["messages", 4, 4 * 8],
      ["messages", 1, 8],
      ["deliveries", 4, 4 * 8],
      ["deliveries", 1, 8],
      ["deliveries", 1, 8],
    ]);
  });

  it("splits deletes at gaps", () => {
    const p = new PendingChanges();
    for (const seq of [1, 2, 4, 9, 10]) p.removeDelivery("c", seq);
    expect(statements(p).map(([, params]) => params)).toEqual([
      ["c", 1, 2],
      ["c", 4, 4],
      ["c", 9, 10],
    ]);
  });

  it("assigns a run whose packet ids go up with its seqs in one statement, and splits at a wrap or a phase change", () => {
    const p = new PendingChanges();
    p.assignDelivery("c", 100, { packetId: 65534, phase: "publish" });
    p.assignDelivery("c", 101, { packetId: 65535, phase: "publish" });
    p.assignDelivery("c", 102, { packetId: 1, phase: "publish" });
    p.assignDelivery("c", 103, { packetId: 2, phase: "publish" });
    p.assignDelivery("c", 104, { packetId: 3, phase: "pubrel" });
    expect(statements(p)).toEqual([
      ["UPDATE deliveries SET packet_id = seq + ?, phase = ? WHERE client_id = ? AND seq BETWEEN ? AND ?", [65434, "publish", "c", 100, 101]],
      ["UPDATE deliveries SET packet_id = seq + ?, phase = ? WHERE client_id = ? AND seq BETWEEN ? AND ?", [-101, "publish", "c", 102, 103]],
      ["UPDATE deliveries SET packet_id = seq + ?, phase = ? WHERE client_id = ? AND seq BETWEEN ? AND ?", [-101, "pubrel", "c", 104, 104]],
    ]);
  });
});

describe("ranged writes on the file", () => {
  it("leave the rows between runs as they were", async () => {
    const store = SqliteStore.open({ dataDir: dir.path });
    store.sessionSaved({ clientId: "c", expiryInterval: 3600, generation: 1, disconnectedAt: undefined });
    for (let seq = 1; seq <= 10; seq++) store.deliveryQueued("c", seq, { message: message("t", `m${String(seq)}`), qos: 2, retain: false, subscriptionIds: [] });
    await store.flush();
    // Ids wrap between seq 3 and 4; seq 6 is not assigned; seq 8 moves on to PUBREL.
    const ids = new Map([[2, 65534], [3, 65535], [4, 1], [5, 2], [7, 4], [8, 5], [9, 6]]);
    for (const [seq, packetId] of ids) store.deliveryAssigned("c", seq, { packetId, phase: seq === 8 ? "pubrel" : "publish" });
    for (const seq of [1, 10]) store.deliveryRemoved("c", seq);
    await store.close();

    const reopened = SqliteStore.open({ dataDir: dir.path });
    const [session] = reopened.load().sessions;
    expect(session?.deliveries.map((d) => [d.seq, new TextDecoder().decode(d.delivery.message.payload), d.assigned?.packetId, d.assigned?.phase])).toEqual([
      [2, "m2", 65534, "publish"],
      [3, "m3", 65535, "publish"],
      [4, "m4", 1, "publish"],
      [5, "m5", 2, "publish"],
      [6, "m6", undefined, undefined],
      [7, "m7", 4, "publish"],
      [8, "m8", 5, "pubrel"],
      [9, "m9", 6, "publish"],
    ]);
    await reopened.close();
  });
});
