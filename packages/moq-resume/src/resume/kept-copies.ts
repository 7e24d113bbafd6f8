/**
 * Which copies a resumed track keeps after they leave its segment list (pruned, folded into a
 * cache, or replaced by a park). A kept copy is one a reader can still be handed a group from, so
 * the rules here are what make the copies outside the list safe to read and safe to let go:
 * - a copy stays while it is open, or while an attached reader may still need something it holds
 *   (decided from what the reader was handed, see `readerNeeds`);
 * - a copy stays while it holds the head of a group that another copy a reader can be handed from,
 *   listed or kept, holds only from a later frame (head for newcomers);
 * - under an age bound, a copy let go gives up the groups a listed copy holds whole, so whatever
 *   still points at them (a reader's lane draining the copy, a group parked in its cursor) is
 *   served the listed copy, which the age bound reaches, instead of one nothing expires any more.
 * @module
 */
import { segmentCovers, type Segment } from "@handoff/seqlog";
import type { FeedReader } from "../model/feed.js";
import type { Group } from "../model/group.js";
import type { Track } from "../model/track.js";

/** The live copies of `sequence` that `segments` hold in range, newest segment first, appended to `copies`. */
export function copiesIn(segments: readonly Segment<Track>[], sequence: number, copies: Group[] = []): Group[] {
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment === undefined || !segmentCovers(segment, sequence)) continue;
    const group = segment.source.get(sequence);
    if (group !== undefined && !group.lost) copies.push(group);
  }
  return copies;
}

/** True when a copy in `listed` holds group `sequence` from its first frame to its end. */
export function wholeIn(listed: readonly Segment<Track>[], sequence: number): boolean {
  // Asked for every group of every copy let go and every reader's unread group: no list made.
  for (const segment of listed) {
    if (!segmentCovers(segment, sequence)) continue;
    const group = segment.source.get(sequence);
    if (group?.finished === true && group.base === 0) return true;
  }
  return false;
}

/**
 * The segments of `retained` to keep, given the `listed` ones and the attached `readers`. The head
 * rule compares a copy with the others that stay, so it is decided one copy at a time against
 * what is still kept (two copies that each start as low as the other must not both go on the
 * other's account), and repeated until nothing changes: letting a copy go may make another one
 * unnecessary, such as the head of a group only the copy let go continued. A copy goes only while
 * another still kept starts at or below it (or none holds that group: nobody can be handed it),
 * and that one on the same terms, so what stays holds the lowest head of what went.
 */
export function keptCopies(
  listed: readonly Segment<Track>[],
  retained: readonly Segment<Track>[],
  readers: ReadonlySet<FeedReader>,
): Set<Segment<Track>> {
  const kept = new Set(retained);
  if (kept.size === 0) return kept;
  const whole = (sequence: number): boolean => wholeIn(listed, sequence);
  // What a reader needs of a copy depends on the list alone (`whole`), not on the other kept copies.
  const pinned = new Set(retained.filter((segment) => pinnedByReaders(segment, readers, whole)));
  for (let changed = true; changed; ) {
    changed = false;
    for (const segment of kept) {
      if (pinned.has(segment) || holdsMissingHead(segment, listed, kept)) continue;
      kept.delete(segment);
      changed = true;
    }
  }
  return kept;
}

/**
 * True while the copy is open or some reader needs it. An open copy (one draining after a
 * handover) may still bring a late group in its range, owed to every reader whose start is at or
 * below it, including readers that join later: what they will be handed is not known yet, so only
 * the copy's end lets it go.
 */
function pinnedByReaders(segment: Segment<Track>, readers: ReadonlySet<FeedReader>, whole: (sequence: number) => boolean): boolean {
  if (!segment.source.closed) return true;
  for (const reader of readers) if (reader.needs(segment, whole)) return true;
  return false;
}

/**
 * True when `segment` holds a group in range that another copy a reader can be handed from (listed,
 * or kept other than this one) holds too, but none of them from this copy's first frame or lower:
 * a newcomer handed that group needs this copy for its head.
 */
function holdsMissingHead(segment: Segment<Track>, listed: readonly Segment<Track>[], kept: ReadonlySet<Segment<Track>>): boolean {
  for (const group of segment.source.groups()) {
    if (group.lost || !segmentCovers(segment, group.sequence)) continue;
    if (headElsewhere(group, listed, kept, segment) === "later") return true;
  }
  return false;
}

/**
 * Where the other copies of `group` that a reader can be handed from start: `none` when there is
 * no other, `head` when one starts at or below `group`'s first frame, `later` when all start past it.
 */
function headElsewhere(
  group: Group,
  listed: readonly Segment<Track>[],
  kept: ReadonlySet<Segment<Track>>,
  self: Segment<Track>,
): "none" | "head" | "later" {
  let found: "none" | "later" = "none";
  for (const other of listed) {
    const start = startIn(other, group, self);
    if (start === "head") return start;
    if (start === "later") found = start;
  }
  for (const other of kept) {
    const start = startIn(other, group, self);
    if (start === "head") return start;
    if (start === "later") found = start;
  }
  return found;
}

/** Where `segment`'s copy of `group` starts compared with `group` (`none`: no other copy there). */
function startIn(segment: Segment<Track>, group: Group, self: Segment<Track>): "none" | "head" | "later" {
  if (segment === self || !segmentCovers(segment, group.sequence)) return "none";
  const copy = segment.source.get(group.sequence);
  if (copy === undefined || copy.lost || copy === group) return "none";
  return copy.base <= group.base ? "head" : "later";
}

/**
 * Evicts from each copy in `released` the groups a listed copy holds whole. A reader's cursor may
 * still reach a released copy (a lane draining it, a group parked from it); what it could still be
 * handed there is only what a listed copy holds whole (anything else it needed kept the copy), and
 * with the released copy's group evicted it is handed the listed one, which `expire()` reaches.
 * `live` are the sources still listed or kept: they are left alone.
 */
export function dropDuplicates(released: readonly Segment<Track>[], listed: readonly Segment<Track>[], live: ReadonlySet<Track>): void {
  for (const segment of released) {
    const source = segment.source;
    if (live.has(source)) continue;
    // By the arrival log, not the held groups' iterator: evicting while walking it is safe.
    for (let i = source.arrivalStart; i < source.arrivalEnd; i++) {
      const entry = source.arrival(i);
      if (entry === undefined || entry.item.lost || source.get(entry.seq) !== entry.item) continue;
      if (wholeIn(listed, entry.seq)) source.evict(entry.seq);
    }
  }
}
