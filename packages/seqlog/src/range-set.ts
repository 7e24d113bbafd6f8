/**
 * A compact set of sequence numbers kept as sorted, disjoint, non-adjacent inclusive ranges.
 *
 * This is how a reader's position is recorded: "which groups (or messages) were handed to this
 * reader". A high-water mark cannot tell a group that arrived late below it from one that was
 * handed out; a set can, and stays small because handed-out numbers are mostly contiguous.
 * @module
 */
import { checkSeq } from "./seq.js";

/** One inclusive range `[start, end]`. */
export type SeqRange = readonly [start: number, end: number];

// The flat array stores range k at [2k] (start) and [2k + 1] (end). Reads go through `at` so an
// out-of-bounds index is a loud bug rather than a silent `undefined` in arithmetic.
function at(data: readonly number[], index: number): number {
  const value = data[index];
  if (value === undefined) throw new Error(`RangeSet internal index ${String(index)} out of bounds`);
  return value;
}

/** A set of non-negative safe integers stored as ranges. */
export class RangeSet {
  #data: number[] = [];
  #size = 0;

  /** Builds a set from ranges (in any order; overlapping or adjacent ranges are merged). */
  static fromRanges(ranges: Iterable<SeqRange>): RangeSet {
    const set = new RangeSet();
    for (const [start, end] of ranges) set.addRange(start, end);
    return set;
  }

  /** How many numbers the set holds. */
  get size(): number {
    return this.#size;
  }

  /** How many disjoint ranges hold them (the memory cost). */
  get rangeCount(): number {
    return this.#data.length / 2;
  }

  /** True when the set holds nothing. */
  get isEmpty(): boolean {
    return this.#data.length === 0;
  }

  /** The smallest number held, if any. */
  get first(): number | undefined {
    return this.#data[0];
  }

  /** The largest number held, if any. */
  get last(): number | undefined {
    return this.#data[this.#data.length - 1];
  }

  /** Index of the first range whose end is >= `n` (equals `rangeCount` if none). */
  #firstEndingAtOrAfter(n: number): number {
    const data = this.#data;
    let lo = 0;
    let hi = data.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at(data, 2 * mid + 1) < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** True when the set holds `n`. */
  has(n: number): boolean {
    const k = this.#firstEndingAtOrAfter(n);
    return 2 * k < this.#data.length && at(this.#data, 2 * k) <= n;
  }

  /** True when the set holds every number in `[start, end]`. */
  hasRange(start: number, end: number): boolean {
    if (start > end) return true;
    const k = this.#firstEndingAtOrAfter(start);
    return 2 * k < this.#data.length && at(this.#data, 2 * k) <= start && at(this.#data, 2 * k + 1) >= end;
  }

  /** Adds `n`; returns true if it was not held before. */
  add(n: number): boolean {
    return this.addRange(n, n) === 1;
  }

  /**
   * Adds every number in `[start, end]` and returns how many were not held before. Throws
   * `SeqRangeError` for a bound that is not a safe non-negative integer.
   */
  addRange(start: number, end: number): number {
    checkSeq(start, "range start");
    checkSeq(end, "range end");
    if (start > end) throw new RangeError(`empty range [${String(start)}, ${String(end)}]`);
    const data = this.#data;
    // Ranges that overlap or touch [start, end] are merged with it: they run from the first range
    // ending at or after start - 1 up to (excluding) the first one starting after end + 1.
    const first = this.#firstEndingAtOrAfter(start - 1);
    let last = first;
    let covered = 0;
    let mergedStart = start;
    let mergedEnd = end;
    while (2 * last < data.length && at(data, 2 * last) <= end + 1) {
      const s = at(data, 2 * last);
      const e = at(data, 2 * last + 1);
      covered += e - s + 1;
      if (s < mergedStart) mergedStart = s;
      if (e > mergedEnd) mergedEnd = e;
      last += 1;
    }
    const added = mergedEnd - mergedStart + 1 - covered;
    if (added === 0) return 0;
    // In place where no range comes or goes (the common case: a range grows by one at its end),
    // and a push past the last range: a splice allocates its list of removed items every time.
    if (last - first === 1) {
      data[2 * first] = mergedStart;
      data[2 * first + 1] = mergedEnd;
    } else if (last === first && 2 * first === data.length) data.push(mergedStart, mergedEnd);
    else data.splice(2 * first, 2 * (last - first), mergedStart, mergedEnd);
    this.#size += added;
    return added;
  }

  /** Adds every number of `other`; returns how many were not held before. */
  union(other: RangeSet): number {
    let added = 0;
    for (const [start, end] of other.ranges()) added += this.addRange(start, end);
    return added;
  }

  /** Removes `n`; returns true if it was held. */
  delete(n: number): boolean {
    const data = this.#data;
    const k = this.#firstEndingAtOrAfter(n);
    if (2 * k >= data.length) return false;
    const s = at(data, 2 * k);
    const e = at(data, 2 * k + 1);
    if (s > n) return false;
    if (s === e) data.splice(2 * k, 2);
    else if (n === s) data[2 * k] = s + 1;
    else if (n === e) data[2 * k + 1] = e - 1;
    else data.splice(2 * k, 2, s, n - 1, n + 1, e);
    this.#size -= 1;
    return true;
  }

  /** The smallest number `>= from` that the set does not hold. */
  nextMissing(from = 0): number {
    const k = this.#firstEndingAtOrAfter(from);
    if (2 * k < this.#data.length && at(this.#data, 2 * k) <= from) return at(this.#data, 2 * k + 1) + 1;
    return from;
  }

  /** The smallest number `>= from` that the set holds, if any. */
  nextPresent(from = 0): number | undefined {
    const k = this.#firstEndingAtOrAfter(from);
    if (2 * k >= this.#data.length) return undefined;
    return Math.max(from, at(this.#data, 2 * k));
  }

  /**
   * Marks every number below `floor` as held, collapsing all ranges below it into one. Used once
   * everything below a point is settled (delivered, or reported lost), so the set stays one range
   * long however many gaps it once had.
   */
  compact(floor: number): void {
    if (floor > 0) this.addRange(0, floor - 1);
  }

  /** The ranges, in increasing order. */
  *ranges(): IterableIterator<SeqRange> {
    const data = this.#data;
    for (let i = 0; i < data.length; i += 2) yield [at(data, i), at(data, i + 1)];
  }

  /** The missing ranges inside `[start, end]`, in increasing order. */
  *gaps(start: number, end: number): IterableIterator<SeqRange> {
    let cursor = start;
    while (cursor <= end) {
      const missing = this.nextMissing(cursor);
      if (missing > end) return;
      const present = this.nextPresent(missing);
      const gapEnd = present === undefined ? end : Math.min(end, present - 1);
      yield [missing, gapEnd];
      cursor = gapEnd + 1;
    }
  }

  /** Every number held, in increasing order. Beware: a compacted set may hold very many. */
  *values(): IterableIterator<number> {
    for (const [start, end] of this.ranges()) for (let n = start; n <= end; n++) yield n;
  }

  /** An independent copy. */
  clone(): RangeSet {
    const copy = new RangeSet();
    copy.#data = [...this.#data];
    copy.#size = this.#size;
    return copy;
  }

  /** True when both sets hold the same numbers. */
  equals(other: RangeSet): boolean {
    const a = this.#data;
    const b = other.#data;
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }

  /** The ranges as plain pairs, for storage and logs. */
  toJSON(): [number, number][] {
    return [...this.ranges()].map(([s, e]) => [s, e]);
  }

  /** A short human-readable form, e.g. `{0-4, 7, 9-12}`. */
  toString(): string {
    return `{${[...this.ranges()].map(([s, e]) => (s === e ? String(s) : `${String(s)}-${String(e)}`)).join(", ")}}`;
  }
}
