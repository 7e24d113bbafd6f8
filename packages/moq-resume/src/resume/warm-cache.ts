/**
 * The warm cache a park leaves behind: one track copy holding, for every group the replaced
 * segments held in range, a merged copy of its frames (a group split by mid-group takeovers is
 * stitched back together from its copies, so the head of an open group survives any number of
 * parks). Groups keep their original arrival order and creation time, so age eviction still
 * applies.
 * @module
 */
import { segmentCovers, type Clock, type Segment } from "@handoff/seqlog";
import type { CacheLimits } from "../model/cache.js";
import type { Group } from "../model/group.js";
import { Track } from "../model/track.js";

/** Options of {@link warmCache}. */
export interface WarmCacheOptions extends CacheLimits {
  /** Name of the cache track (for logs). */
  readonly name: string;
  /** Clock for the cache's age bound. */
  readonly clock: Clock;
}

/** Builds the cache track for `segments` (oldest first). */
export function warmCache(segments: readonly Segment<Track>[], options: WarmCacheOptions): Track {
  const copies = new Map<number, Group[]>();
  for (const segment of segments) {
    const source = segment.source;
    for (let i = source.arrivalStart; i < source.arrivalEnd; i++) {
      const entry = source.arrival(i);
      if (entry === undefined || entry.item.lost || !segmentCovers(segment, entry.seq)) continue;
      const list = copies.get(entry.seq);
      if (list === undefined) copies.set(entry.seq, [entry.item]);
      else if (!list.includes(entry.item)) list.push(entry.item);
    }
  }
  const info = segments[0]?.source.info;
  const cache = new Track(options.name, {
    clock: options.clock,
    ...(options.maxGroups === undefined ? {} : { maxGroups: options.maxGroups }),
    ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
    ...(info === undefined ? {} : { info }),
  });
  // Map iteration follows first insertion, i.e. first arrival across the segments.
  for (const [sequence, groups] of copies) merge(cache, sequence, groups);
  cache.finish();
  return cache;
}

function merge(cache: Track, sequence: number, groups: readonly Group[]): void {
  let base = Infinity;
  let createdAt = Infinity;
  for (const group of groups) {
    base = Math.min(base, group.base);
    createdAt = Math.min(createdAt, group.createdAt);
  }
  const merged = cache.createGroup(sequence, { firstFrame: base, createdAt });
  for (let index = base; ; index++) {
    const payload = firstFrame(groups, index);
    if (payload === undefined) break;
    merged.write(payload);
  }
  const complete = groups.some((group) => group.finished && merged.frameEnd >= group.frameEnd);
  if (complete) merged.finish();
  // No more frames reach the cache's copy; the next copy continues an open group.
  else merged.seal();
}

function firstFrame(groups: readonly Group[], index: number): Uint8Array | undefined {
  for (const group of groups) {
    const payload = group.frame(index);
    if (payload !== undefined) return payload;
  }
  return undefined;
}
