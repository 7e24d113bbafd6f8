/**
 * "Did you mean" hints for misspelt keys, flags and environment variables.
 * @module
 */

/**
 * Edit distance between `a` and `b` where an insertion, a deletion, a substitution or a swap of two
 * neighbouring characters costs 1 (optimal string alignment): `prot` is one edit from `port`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    const above = rows[i - 1] ?? [];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/**
 * The candidate closest to `input`, compared case-insensitively, if it is close enough to be a
 * plausible typo: at most a third of the input's length away (and at least 1, so short names match).
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "x"?)` when a close candidate exists, else the empty string. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const hint = closest(input, candidates);
  return hint === undefined ? "" : ` (did you mean "${hint}"?)`;
}
