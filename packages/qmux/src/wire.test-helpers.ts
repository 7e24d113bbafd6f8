// Helpers shared by the wire tests (test-only, not part of the public API).
import { expect } from "vitest";
import type { Frame } from "./frame.js";
import type { Wire } from "./wire.js";

/** Pushes `bytes` into `wire` cut at `cuts` (each modulo the length) and returns every frame; no push may fail. */
export function pushInPieces(wire: Wire, bytes: Uint8Array, cuts: readonly number[]): Frame[] {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
  const out: Frame[] = [];
  let from = 0;
  for (const at of [...points, bytes.length]) {
    const { frames, error } = wire.push(bytes.slice(from, at));
    expect(error).toBeUndefined();
    out.push(...frames);
    from = at;
  }
  return out;
}
