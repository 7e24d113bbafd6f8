import fc from "fast-check";

/** One edit of a byte string: overwrite, insert or remove the byte at `at` (modulo the length). */
export type ByteEdit = readonly ["set" | "insert" | "delete", at: number, byte: number];

/** `bytes` with `edits` applied in order (a copy; `at` wraps around the current length). */
export function applyEdits(bytes: Uint8Array, edits: readonly ByteEdit[]): Uint8Array {
  const out = [...bytes];
  for (const [op, at, b] of edits) {
    const i = out.length === 0 ? 0 : at % out.length;
    if (op === "set") out[i] = b;
    else if (op === "insert") out.splice(i, 0, b);
    else out.splice(i, 1);
  }
  return Uint8Array.from(out);
}

/** One to four random byte edits. */
export const byteEdits: fc.Arbitrary<ByteEdit[]> = fc.array(
  fc.tuple(fc.constantFrom("set" as const, "insert" as const, "delete" as const), fc.nat(), fc.integer({ min: 0, max: 255 })),
  { minLength: 1, maxLength: 4 },
);

/** What `valid` makes, with a few bytes overwritten, inserted or removed: the fuzzers' near misses. */
export function mutated(valid: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array> {
  return fc.tuple(valid, byteEdits).map(([bytes, edits]) => applyEdits(bytes, edits));
}
