import { describe, expect, it } from "vitest";
import { CheckLimiter } from "./check-limiter.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("CheckLimiter", () => {
  it("runs at most its limit of checks at once and starts the waiting ones in arrival order", async () => {
    const limiter = new CheckLimiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([limiter.running, limiter.waiting]).toEqual([2, 2]);
    gates[1]?.resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([limiter.running, limiter.waiting]).toEqual([0, 0]);
  });

  it("frees the slot of a check that fails", async () => {
    const limiter = new CheckLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run(() => Promise.resolve(7))).toBe(7);
    expect(limiter.running).toBe(0);
  });
});
