// A connection's writes of one callback leave in one batch: one socket write, not one per packet.
import { describe, expect, it } from "vitest";
import { WriteBatch } from "./transport.js";

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function recording(): { batch: WriteBatch; flushes: number[][][] } {
  const flushes: number[][][] = [];
  const batch = new WriteBatch((chunks, total) => {
    expect(total).toBe(chunks.reduce((n, c) => n + c.byteLength, 0));
    flushes.push(chunks.map((c) => [...c]));
  });
  return { batch, flushes };
}

describe("WriteBatch", () => {
  it("hands what one callback wrote over in one flush, once the callback is done", async () => {
    const { batch, flushes } = recording();
    batch.push(bytes(1));
    batch.push(bytes(2, 3));
    expect([flushes, batch.pending]).toEqual([[], 3]);
    await nextTurn();
    expect([flushes, batch.pending]).toEqual([[[[1], [2, 3]]], 0]);
    batch.push(bytes(4));
    await nextTurn();
    expect(flushes).toEqual([[[1], [2, 3]], [[4]]]);
  });

  it("hands over at once when asked (a close), and the scheduled flush then has nothing to send", async () => {
    const { batch, flushes } = recording();
    batch.push(bytes(7));
    batch.flushNow();
    expect(flushes).toEqual([[[7]]]);
    await nextTurn();
    expect(flushes).toEqual([[[7]]]);
  });
});
