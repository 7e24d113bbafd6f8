/**
 * Latency samples: a uniform reservoir (Algorithm R) so a multi-million-message window costs a
 * fixed amount of memory, and percentiles over it.
 * @module
 */

/** A fixed-size uniform sample of latencies in milliseconds. */
export class LatencyReservoir {
  readonly #samples: Float64Array;
  #seen = 0;

  /** @param capacity samples kept */
  constructor(capacity = 100_000) {
    this.#samples = new Float64Array(capacity);
  }

  /** Values offered so far. */
  get count(): number {
    return this.#seen;
  }

  /** Offers one latency. */
  add(ms: number): void {
    const cap = this.#samples.length;
    if (this.#seen < cap) {
      this.#samples[this.#seen] = ms;
    } else {
      const j = Math.floor(Math.random() * (this.#seen + 1));
      if (j < cap) this.#samples[j] = ms;
    }
    this.#seen++;
  }

  /** The `q` quantile (0..1) of the sample, or undefined when empty. */
  quantiles(qs: readonly number[]): (number | undefined)[] {
    const n = Math.min(this.#seen, this.#samples.length);
    if (n === 0) return qs.map(() => undefined);
    const sorted = this.#samples.slice(0, n).sort();
    return qs.map((q) => sorted[Math.min(n - 1, Math.floor(q * n))]);
  }
}

// Timestamps travel as a float64 of performance.now() in the payload's first 8 bytes; both ends
// are in this process, so the clocks agree. Copying through a scratch view avoids a DataView per
// message on the hot path.
const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);

/** Writes `ms` into `buf` at `offset` (8 bytes). */
export function writeStamp(buf: Uint8Array, offset: number, ms: number): void {
  scratch[0] = ms;
  for (let i = 0; i < 8; i++) buf[offset + i] = scratchBytes[i] ?? 0;
}

/** Reads the stamp at the start of `payload` (undefined when the payload is too short). */
export function readStamp(payload: Uint8Array): number | undefined {
  if (payload.length < 8) return undefined;
  for (let i = 0; i < 8; i++) scratchBytes[i] = payload[i] ?? 0;
  return scratch[0];
}
