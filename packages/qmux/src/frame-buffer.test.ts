import { describe, expect, it } from "vitest";
import { frameBuffer } from "./frame-buffer.js";

describe("frameBuffer", () => {
  it("hands out small buffers of the asked size that never overlap, across slabs", () => {
    const taken = Array.from({ length: 40 }, (_, i) => frameBuffer(400 + i * 37));
    taken.forEach((b, i) => {
      expect(b.length).toBe(400 + i * 37);
      b.fill(i + 1);
    });
    // Writing each one left every other one intact.
    taken.forEach((b, i) => {
      expect(b.every((v) => v === i + 1)).toBe(true);
    });
    expect(new Set(taken.map((b) => b.buffer)).size).toBeGreaterThan(1);
  });

  it("cuts a coalesced group of a few kilobytes from a slab too", () => {
    const a = frameBuffer(5000);
    const b = frameBuffer(5000);
    expect(a.buffer).toBe(b.buffer);
    expect(b.byteOffset).toBeGreaterThanOrEqual(a.byteOffset + a.length);
  });

  it("gives a large frame a buffer of its own", () => {
    const big = frameBuffer(10_000);
    expect(big.length).toBe(10_000);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(10_000);
  });
});
