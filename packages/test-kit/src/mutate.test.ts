import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdits, mutated } from "./mutate.js";

describe("byte mutations", () => {
  it("sets, inserts and deletes at positions modulo the length, on a copy", () => {
    const bytes = Uint8Array.of(1, 2, 3);
    expect([...applyEdits(bytes, [["set", 4, 9]])]).toEqual([1, 9, 3]);
    expect([...applyEdits(bytes, [["insert", 0, 7]])]).toEqual([7, 1, 2, 3]);
    expect([...applyEdits(bytes, [["delete", 2, 0], ["delete", 0, 0]])]).toEqual([2]);
    expect([...applyEdits(new Uint8Array(0), [["insert", 5, 4]])]).toEqual([4]);
    expect([...bytes]).toEqual([1, 2, 3]);
  });

  it("changes the length by at most the number of edits", () => {
    fc.assert(
      fc.property(mutated(fc.constant(Uint8Array.of(1, 2, 3, 4))), (bytes) => {
        expect(Math.abs(bytes.length - 4)).toBeLessThanOrEqual(4);
      }),
    );
  });
});
