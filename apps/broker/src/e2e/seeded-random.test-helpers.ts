// Test-only: a small seeded generator (mulberry32), so a schedule drawn from it is replayed by its seed.

/** Uniform numbers in [0, 1) from `seed`; the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A seed for a run: `text` if it is a number (a replay), else a fresh one. */
export function pickSeed(text: string | undefined): number {
  if (text !== undefined && text !== "" && Number.isSafeInteger(Number(text))) return Number(text) >>> 0;
  return Math.floor(Math.random() * 4_294_967_296);
}
