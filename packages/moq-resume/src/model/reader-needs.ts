/**
 * Whether a reader may still need a copy: the rule a resumed track applies before it lets a
 * pruned or replaced copy go. Decided from what the reader was handed (its settled set and the
 * positions of the groups it is reading), never from a maximum.
 * @module
 */
import { segmentCovers, type Segment, type SegmentSource } from "@handoff/seqlog";
import type { Group } from "./group.js";
import type { GroupReader } from "./group-reader.js";

/** What the rule reads of one reader. */
export interface ReaderPosition {
  /** The start floor in force, if any. */
  readonly floor: number | undefined;
  /** True when group `seq` was handed out or reported lost. */
  settled(seq: number): boolean;
  /** True when every group of `[start, end]` was handed out or reported lost. */
  settledRange(start: number, end: number): boolean;
  /** The groups handed out and still being read. */
  readonly reading: Iterable<GroupReader>;
}

/**
 * True when the reader may still need something `segment` holds or may still bring: frames past
 * the position of a group it is reading or that group's end, a group it is owed and was not
 * handed, or (while the copy is open) a straggler in the segment's range it was not handed yet.
 * `whole(seq)` says another kept copy holds that group entirely, which makes this one unnecessary
 * for it.
 */
export function readerNeeds(
  reader: ReaderPosition,
  segment: Segment<SegmentSource<Group>>,
  whole: (seq: number) => boolean,
): boolean {
  const source = segment.source;
  for (const read of reader.reading) {
    if (read.done || read.selfSufficient || !segmentCovers(segment, read.sequence)) continue;
    const copy = source.get(read.sequence);
    // Frames past the position, or the group's end: a finished copy is what tells the read it is over.
    const ahead = copy !== undefined && !copy.lost && (copy.frameEnd > read.position || copy.finished);
    if (ahead && !whole(read.sequence)) return true;
  }
  const floor = reader.floor;
  for (let i = source.arrivalStart; i < source.arrivalEnd; i++) {
    const entry = source.arrival(i);
    if (entry === undefined || entry.item.lost || !segmentCovers(segment, entry.seq)) continue;
    if (floor !== undefined && entry.seq < floor) continue;
    if (!reader.settled(entry.seq) && !whole(entry.seq)) return true;
  }
  if (source.closed) return false;
  if (segment.end === undefined) return true;
  const low = Math.max(segment.start ?? 0, floor ?? 0);
  return low <= segment.end && !reader.settledRange(low, segment.end);
}
