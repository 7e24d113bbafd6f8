import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fence, GENERATIONS_PER_MS, GenerationAllocator, GenerationExhaustedError } from "./generation.js";

describe("GenerationAllocator", () => {
  it("hands out strictly increasing generations", () => {
    const gens = new GenerationAllocator();
    const a = gens.allocate();
    const b = gens.allocate();
    expect(b).toBeGreaterThan(a);
  });

  it("starts above the highest persisted generation", () => {
    const gens = new GenerationAllocator({ persisted: 41 });
    expect(gens.allocate()).toBe(42);
  });

  it("starts above anything an earlier run could have reached at its normal rate", () => {
    const bootMs = 1_800_000_000_000;
    const gens = new GenerationAllocator({ wallClockMs: bootMs });
    expect(gens.allocate()).toBe(bootMs * GENERATIONS_PER_MS);
  });

  it("never reuses a generation across a restart whatever the clocks and storage say", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (bootMs, allocations, laterMs) => {
          const first = new GenerationAllocator({ wallClockMs: bootMs });
          let highest = 0;
          for (let i = 0; i < allocations; i++) highest = first.allocate();
          // The restart reads the persisted highest and a wall clock that may not have moved.
          const second = new GenerationAllocator({ persisted: highest, wallClockMs: bootMs + laterMs });
          return second.allocate() > highest;
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses to start past 2^53 - 1", () => {
    expect(() => new GenerationAllocator({ persisted: Number.MAX_SAFE_INTEGER })).toThrow(GenerationExhaustedError);
  });

  it("skips a generation observed from elsewhere", () => {
    const gens = new GenerationAllocator({ persisted: 1 });
    gens.observe(10);
    expect(gens.allocate()).toBe(11);
    gens.observe(3);
    expect(gens.allocate()).toBe(12);
  });
});

describe("Fence", () => {
  it("admits only the current generation", () => {
    const fence = new Fence(5);
    expect(fence.admits(5)).toBe(true);
    fence.advance(6);
    expect(fence.admits(5)).toBe(false);
    expect(fence.admits(6)).toBe(true);
  });

  it("never moves backwards or stays put, so a stale owner cannot become current again", () => {
    const fence = new Fence(5);
    expect(() => {
      fence.advance(5);
    }).toThrow(RangeError);
    expect(() => {
      fence.advance(4);
    }).toThrow(RangeError);
    expect(fence.current).toBe(5);
  });
});
