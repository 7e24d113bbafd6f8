import { describe, expect, it } from "vitest";
import { ManualClock } from "./clock.js";

describe("ManualClock", () => {
  it("reads its start until moved", () => {
    const clock = new ManualClock(1000);
    expect(clock.now()).toBe(1000);
    expect(clock.now()).toBe(1000);
  });

  it("moves forward by the given amount", () => {
    const clock = new ManualClock(0);
    expect(clock.advance(250)).toBe(250);
    clock.set(400);
    expect(clock.now()).toBe(400);
  });

  it("refuses to move backwards", () => {
    const clock = new ManualClock(100);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => {
      clock.set(99);
    }).toThrow(RangeError);
  });
});
