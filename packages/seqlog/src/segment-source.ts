/**
 * What a segment cursor needs from the thing that backs a segment: an arrival-ordered log of
 * sequenced items and a lookup by sequence number. Generic over the item type, so the same cursor
 * logic serves moq groups or any other sequenced payload.
 * @module
 */

/** An item a source holds. `lost` turns true once its holder dropped it (evicted, expired). */
export interface SegmentItem {
  /** True once the item can no longer be handed out (its holder evicted or aborted it). */
  readonly lost: boolean;
}

/** One arrival: the item's sequence number and the item itself. */
export interface ArrivalEntry<T> {
  /** The item's sequence number. */
  readonly seq: number;
  /** The item; it may be `lost` by the time a cursor reads the entry. */
  readonly item: T;
}

/**
 * A source backing a segment. Arrival indexes are absolute and increase forever; the source may
 * forget old entries (then `arrivalStart` moves up), which a lagging cursor reports as lagged.
 */
export interface SegmentSource<T extends SegmentItem> {
  /** The lowest arrival index still readable. */
  readonly arrivalStart: number;
  /** One past the highest arrival index so far. */
  readonly arrivalEnd: number;
  /** The entry at an absolute arrival index, if still held. */
  arrival(index: number): ArrivalEntry<T> | undefined;
  /** The held (not lost) item with this sequence number, if any. */
  get(seq: number): T | undefined;
  /** The highest sequence number this source ever produced, if any. */
  readonly latest: number | undefined;
  /** True once no more arrivals can come (finished, aborted or gone). */
  readonly closed: boolean;
}

/** Whether a segment is fed by an upstream copy or is a warm cache left by a park. */
export type SegmentKind = "live" | "cache";

/**
 * One segment: sequence numbers `[start, end]` (inclusive; `undefined` start means "from whatever
 * the source has", `undefined` end means open-ended) served by `source`.
 */
export interface Segment<S> {
  /** Unique within its list, increasing in creation order. */
  readonly id: number;
  /** First sequence number served, or undefined for "from the source's start / live edge". */
  readonly start: number | undefined;
  /** Last sequence number served, or undefined while this segment is the open-ended tail. */
  readonly end: number | undefined;
  /** What backs the segment. */
  readonly source: S;
  /** `cache` for a warm cache left by a park. */
  readonly kind: SegmentKind;
  /** For a cache segment: the ids of the segments it replaced (their cursors hand off to it). */
  readonly replaces: readonly number[];
}

/** True when `seq` falls inside the segment's range. */
export function segmentCovers(segment: Segment<unknown>, seq: number): boolean {
  return (segment.start === undefined || seq >= segment.start) && (segment.end === undefined || seq <= segment.end);
}
