import fc from "fast-check";

/**
 * `bytes` split at up to `maxCuts` distinct random points into chunks, none empty unless `bytes`
 * is: how the fuzzers feed a stream decoder, so it is checked under every way the network may cut
 * its input.
 */
export function chunked(bytes: Uint8Array, maxCuts = 8): fc.Arbitrary<Uint8Array[]> {
  const cuts = fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: Math.min(bytes.length, maxCuts) });
  return cuts.map((at) => {
    const points = [0, ...at.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length];
    const out: Uint8Array[] = [];
    for (let i = 0; i + 1 < points.length; i++) out.push(bytes.subarray(points[i] ?? 0, points[i + 1] ?? 0));
    return out;
  });
}
