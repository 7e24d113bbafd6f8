/**
 * Latencies as a histogram of 0.1 ms buckets: a subscriber process sends its buckets, the bench
 * merges them across processes and reads quantiles, so a million frames cost a few kilobytes.
 * Frames carry their send time (performance.timeOrigin + performance.now(), the same clock in
 * every process of the machine) in their first 8 bytes, and the round they belong to (0: the
 * warm-up, 1: the measured run) at byte 13.
 * @module
 */

/** Bucket index (0.1 ms) to count. */
export type Histogram = Map<number, number>;

/** The wall clock in milliseconds, comparable across processes. */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** The round a stamped frame belongs to (see {@link stampedFrame}). */
export function roundOf(payload: Uint8Array): number {
  return payload.byteLength > 13 ? (payload[13] ?? 0) : 0;
}

/** Counts one frame's latency from the stamp in its payload. */
export function record(histogram: Histogram, payload: Uint8Array): void {
  if (payload.byteLength < 8) return;
  const sent = new DataView(payload.buffer, payload.byteOffset, 8).getFloat64(0);
  const bucket = Math.max(0, Math.round((wallNow() - sent) * 10));
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
}

/** Adds `entries` (as sent over IPC) into `into`. */
export function merge(into: Histogram, entries: readonly (readonly [number, number])[]): void {
  for (const [bucket, n] of entries) into.set(bucket, (into.get(bucket) ?? 0) + n);
}

/** The `q` quantiles (0..1) in milliseconds; NaN when empty. */
export function quantiles(histogram: Histogram, qs: readonly number[]): number[] {
  const buckets = [...histogram].sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((n, [, c]) => n + c, 0);
  return qs.map((q) => {
    if (total === 0) return Number.NaN;
    const rank = Math.min(total - 1, Math.floor(q * total));
    let seen = 0;
    for (const [bucket, c] of buckets) {
      seen += c;
      if (seen > rank) return bucket / 10;
    }
    return Number.NaN;
  });
}

/** The median of `xs` (the mean of the middle two for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[half] ?? Number.NaN) : ((sorted[half - 1] ?? Number.NaN) + (sorted[half] ?? Number.NaN)) / 2;
}

/** A frame of `bytes` bytes stamped now, with its group, frame index and round at bytes 8, 12 and 13. */
export function stampedFrame(bytes: number, group: number, index: number, round: number): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  view.setFloat64(0, wallNow());
  view.setUint32(8, group);
  out[12] = index;
  out[13] = round;
  return out;
}
