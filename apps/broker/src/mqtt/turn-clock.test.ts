// The wall clock is read once per event-loop turn, and read again in the next one.
import { describe, expect, it } from "vitest";
import { TurnClock } from "./turn-clock.js";

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("TurnClock", () => {
  it("reads the clock behind it once per turn and gives that reading to every caller of the turn", async () => {
    let reads = 0;
    const clock = new TurnClock(() => (reads += 1) * 1000);
    expect([clock.now(), clock.now(), clock.now()]).toEqual([1000, 1000, 1000]);
    expect(reads).toBe(1);
    await nextTurn();
    expect([clock.now(), clock.now()]).toEqual([2000, 2000]);
    expect(reads).toBe(2);
  });

  it("does not read the clock in a turn nobody asks the time", async () => {
    let reads = 0;
    const clock = new TurnClock(() => (reads += 1));
    clock.now();
    await nextTurn();
    await nextTurn();
    expect(reads).toBe(1);
    expect(clock.now()).toBe(2);
  });
});
