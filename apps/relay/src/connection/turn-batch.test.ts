import { describe, expect, it } from "vitest";
import { TurnBatch } from "./turn-batch.js";

function manual(): { batch: TurnBatch; scheduled: (() => void)[] } {
  const scheduled: (() => void)[] = [];
  return {
    batch: new TurnBatch((run) => {
      scheduled.push(run);
    }),
    scheduled,
  };
}

describe("TurnBatch", () => {
  it("schedules one run for everything deferred in a turn, and runs it in order", () => {
    const { batch, scheduled } = manual();
    const ran: number[] = [];
    for (let i = 0; i < 100; i++) {
      batch.defer(() => {
        ran.push(i);
      });
    }
    expect(scheduled).toHaveLength(1);
    expect(batch.size).toBe(100);
    scheduled[0]?.();
    expect(ran).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(batch.size).toBe(0);
  });

  it("leaves what is deferred during a run to the next run", () => {
    const { batch, scheduled } = manual();
    const ran: string[] = [];
    batch.defer(() => {
      ran.push("first");
      batch.defer(() => {
        ran.push("second");
      });
    });
    scheduled[0]?.();
    expect(ran).toEqual(["first"]);
    expect(scheduled).toHaveLength(2);
    scheduled[1]?.();
    expect(ran).toEqual(["first", "second"]);
  });

  it("runs the rest of the batch when one callback throws, then throws that error", () => {
    const { batch, scheduled } = manual();
    const ran: string[] = [];
    batch.defer(() => {
      throw new Error("boom");
    });
    batch.defer(() => {
      ran.push("after");
    });
    expect(() => scheduled[0]?.()).toThrow("boom");
    expect(ran).toEqual(["after"]);
  });
});
