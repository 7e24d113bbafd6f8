/**
 * Upstream demand: what the relay asks a segment's upstream copy for. It is the readers'
 * preferences intersected with the segment's range. A takeover boundary never becomes a start
 * request for live-edge readers: asking for it would replay the outage to readers that asked for
 * the live edge.
 * @module
 */
import type { Segment } from "@handoff/seqlog";
import type { ReaderPrefs } from "../model/feed.js";

/** What to ask an upstream copy for: groups `[start, end]` (undefined start = live edge). */
export interface Demand {
  /** First group wanted, or undefined for the live edge. */
  readonly start: number | undefined;
  /** Last group wanted (inclusive), or undefined for no end. */
  readonly end: number | undefined;
}

/** Intersects one reader's preferences with a segment's range. */
export function sliceDemand(prefs: ReaderPrefs, segment: Segment<unknown>): Demand {
  const start =
    prefs.start === undefined ? undefined : segment.start === undefined ? prefs.start : Math.max(prefs.start, segment.start);
  const end = prefs.end === undefined ? segment.end : segment.end === undefined ? prefs.end : Math.min(prefs.end, segment.end);
  return { start, end };
}

/**
 * The union of every reader's slice: the lowest explicit start (live edge only if every reader
 * wants it) and the highest end (none if any reader has none). Undefined when nobody reads.
 */
export function segmentDemand(readers: Iterable<ReaderPrefs>, segment: Segment<unknown>): Demand | undefined {
  let demand: Demand | undefined;
  let open = false;
  for (const prefs of readers) {
    const slice = sliceDemand(prefs, segment);
    if (slice.end === undefined) open = true;
    if (demand === undefined) {
      demand = slice;
      continue;
    }
    const start =
      demand.start === undefined ? slice.start : slice.start === undefined ? demand.start : Math.min(demand.start, slice.start);
    const end = open || demand.end === undefined || slice.end === undefined ? undefined : Math.max(demand.end, slice.end);
    demand = { start, end };
  }
  if (demand !== undefined && open) return { start: demand.start, end: segment.end };
  return demand;
}
