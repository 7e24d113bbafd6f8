import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { concat } from "./bytes.js";
import { chunked } from "./chunks.js";

describe("chunked", () => {
  it("cuts the bytes into at most maxCuts + 1 non-empty chunks that join back to them", () => {
    const input = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 20 }));
    fc.assert(
      fc.property(
        input.chain(([bytes, maxCuts]) => chunked(bytes, maxCuts).map((chunks) => ({ bytes, maxCuts, chunks }))),
        ({ bytes, maxCuts, chunks }) => {
          expect(concat(chunks)).toEqual(bytes);
          expect(chunks.length).toBeLessThanOrEqual(maxCuts + 1);
          expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
        },
      ),
    );
  });

  it("cuts a long input somewhere in some run, and to single bytes when asked for enough cuts", () => {
    const bytes = Uint8Array.from({ length: 4 }, (_, i) => i);
    const samples = fc.sample(chunked(bytes, 3), { numRuns: 200, seed: 1 });
    expect(samples.some((chunks) => chunks.length > 1)).toBe(true);
    expect(samples.some((chunks) => chunks.length === 4)).toBe(true);
  });

  it("gives an empty input as one empty chunk", () => {
    expect(fc.sample(chunked(new Uint8Array(0)), { numRuns: 5, seed: 1 })).toEqual(Array.from({ length: 5 }, () => [new Uint8Array(0)]));
  });
});
