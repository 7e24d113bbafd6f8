/** `parts` copied back to back into one new buffer of `total` bytes (their summed length). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let pos = 0;
  for (const part of parts) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}

/** The summed length of `parts`. */
export function partsLength(parts: readonly Uint8Array[]): number {
  let total = 0;
  for (const part of parts) total += part.length;
  return total;
}

/** Copies `parts` back to back into `out` from `pos`; returns the position after them. */
export function copyParts(out: Uint8Array, pos: number, parts: readonly Uint8Array[]): number {
  let at = pos;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return at;
}
