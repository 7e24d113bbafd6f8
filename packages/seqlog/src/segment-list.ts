/**
 * An ordered list of segments `[start, end]`, each backed by a source: the producer side of a
 * stream fed by successive upstream copies. Switching appends a segment and caps the previous one;
 * segments that never produced are replaced; prune bounds the list; park replaces everything with
 * one warm cache segment; release forgets everything because numbering may restart.
 * @module
 */
import { checkSeq } from "./seq.js";
import { segmentCovers, type Segment, type SegmentItem, type SegmentSource } from "./segment-source.js";

/** Thrown when a switch would not advance the boundary (a segment must start past its predecessor). */
export class SegmentBoundsError extends RangeError {
  /** Set so logs and `err.name` checks name the class. */
  override readonly name = "SegmentBoundsError";
  /** The rejected start. */
  readonly start: number | undefined;
  constructor(start: number | undefined, previous: number | undefined) {
    super(`segment start ${String(start)} does not advance past ${String(previous)}`);
    this.start = start;
  }
}

/** Options of {@link SegmentList.switch}. */
export interface SwitchOptions {
  /**
   * The new segment starts at the item the previous one is still producing (a takeover mid-item):
   * the previous segment keeps `start` too, so both cover the seam.
   */
  readonly overlap?: boolean;
  /**
   * Caps the previous segment here instead (at least `start - 1`): a takeover that must also
   * continue older incomplete items starts the new segment at the oldest of them, while the
   * previous segment keeps everything it produced in range. Implies no bounds check on `start`
   * against the previous segment's start.
   */
  readonly previousEnd?: number;
}

/** The latest sequence number a segment produced inside its range, if any. */
export function segmentProduced<T extends SegmentItem>(segment: Segment<SegmentSource<T>>): number | undefined {
  const latest = segment.source.latest;
  if (latest === undefined) return undefined;
  if (segment.start !== undefined && latest < segment.start) return undefined;
  return segment.end === undefined ? latest : Math.min(latest, segment.end);
}

/** The list of segments of one stream. */
export class SegmentList<S extends SegmentSource<T>, T extends SegmentItem> {
  #segments: Segment<S>[] = [];
  #retained: Segment<S>[] = [];
  #nextId = 0;
  #epoch = 0;
  #era = 0;
  #pruned: number | undefined;
  readonly #observers = new Set<() => void>();

  /** The segments, oldest first. Replaced wholesale on every change (safe to keep a snapshot). */
  get segments(): readonly Segment<S>[] {
    return this.#segments;
  }

  /**
   * Segments no longer in the list (pruned, or replaced by a park) whose sources the owner keeps
   * because a reader may still need something they hold. Cursors keep reading them; lookups
   * ({@link SegmentList.find}) still find items in them. Oldest first.
   */
  get retained(): readonly Segment<S>[] {
    return this.#retained;
  }

  /** Bumped on every change; cursors reconcile when it moves. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Bumped by {@link SegmentList.release}: sequence numbers from before it mean nothing after. */
  get era(): number {
    return this.#era;
  }

  /** The highest end of a pruned segment: still counts toward the next boundary. */
  get prunedFloor(): number | undefined {
    return this.#pruned;
  }

  /** The newest segment, if any. */
  get tail(): Segment<S> | undefined {
    return this.#segments[this.#segments.length - 1];
  }

  /** The highest sequence number any segment produced in range, or the pruned floor. */
  latest(): number | undefined {
    let best = this.#pruned;
    for (const segment of this.#segments) {
      const produced = segmentProduced(segment);
      if (produced !== undefined && (best === undefined || produced > best)) best = produced;
    }
    return best;
  }

  /**
   * Appends a segment served by `source` from `start` and caps the previous one just below it
   * (or at `start` with `overlap`). A trailing run of segments that never produced is replaced:
   * the new segment inherits the first one's start, since nothing was served from them.
   * Throws {@link SegmentBoundsError} when `start` does not advance past the previous segment.
   */
  switch(source: S, start: number | undefined, options: SwitchOptions = {}): Segment<S> {
    if (start !== undefined) checkSeq(start, "segment start");
    const kept = [...this.#segments];
    let inherited: number | undefined = start;
    while (kept.length > 0) {
      const last = kept[kept.length - 1];
      if (last === undefined || segmentProduced(last) !== undefined) break;
      kept.pop();
      inherited = last.start;
    }
    const previous = kept[kept.length - 1];
    const overlap = options.overlap === true;
    if (previous !== undefined) {
      const end = this.#previousEnd(previous, start, overlap, options.previousEnd);
      kept[kept.length - 1] = { ...previous, end };
      // A retained copy replaced while it was the open-ended tail stops where its successor does.
      this.#retained = this.#retained.map((segment) => (segment.end === undefined ? { ...segment, end } : segment));
      inherited = start;
    }
    const segment = this.#make(source, inherited, "live", []);
    kept.push(segment);
    this.#commit(kept);
    return segment;
  }

  #previousEnd(previous: Segment<S>, start: number | undefined, overlap: boolean, previousEnd: number | undefined): number {
    if (start !== undefined && previousEnd !== undefined) {
      checkSeq(previousEnd, "previous segment end");
      const floor = Math.max(start - 1, previous.start ?? 0);
      if (previousEnd < floor) throw new SegmentBoundsError(start, previous.start);
      return previousEnd;
    }
    const advances =
      start !== undefined && (previous.start === undefined || (overlap ? start >= previous.start : start > previous.start));
    if (!advances) throw new SegmentBoundsError(start, previous.start);
    return overlap ? start : start - 1;
  }

  /**
   * Switches to `source` just past the newest produced item (or, with `reopen`, at that item, for
   * a takeover that lands while it is still being produced). The first takeover is unbounded.
   * `from` starts the new segment lower, at the oldest item still incomplete, which the new
   * source must continue too; the previous segment keeps what it produced.
   */
  takeover(source: S, reopen = false, from?: number): Segment<S> {
    const latest = this.latest();
    if (latest === undefined) return this.switch(source, undefined);
    const start = reopen ? latest : latest + 1;
    // Older items still incomplete: the new segment starts at the oldest, the previous keeps its range.
    if (from !== undefined && from < start) return this.switch(source, from, { previousEnd: latest });
    return reopen ? this.switch(source, latest, { overlap: true }) : this.switch(source, start);
  }

  /**
   * Drops front segments while more than `max` remain and the front one owes nothing (`owes`
   * defaults to "its source is still open and has not produced through its end"). Returns the
   * dropped segments; their ends become the pruned floor.
   */
  prune(max: number, owes: (segment: Segment<S>) => boolean = defaultOwes): Segment<S>[] {
    const dropped: Segment<S>[] = [];
    const kept = [...this.#segments];
    while (kept.length > Math.max(1, max)) {
      const front = kept[0];
      if (front === undefined || owes(front)) break;
      kept.shift();
      dropped.push(front);
      const floor = front.end ?? segmentProduced(front);
      if (floor !== undefined && (this.#pruned === undefined || floor > this.#pruned)) this.#pruned = floor;
    }
    if (dropped.length > 0) this.#commit(kept);
    return dropped;
  }

  /**
   * Replaces the first `count` segments (default: all) with one cache segment backed by `cache`,
   * covering their range (open-ended when it replaces them all). Cursors on the replaced segments
   * hand off to it. Returns the cache segment and the replaced ones.
   */
  park(cache: S, count = this.#segments.length): { readonly segment: Segment<S>; readonly replaced: readonly Segment<S>[] } {
    const n = Math.max(1, Math.min(count, this.#segments.length));
    const replaced = this.#segments.slice(0, n);
    const rest = this.#segments.slice(n);
    let start: number | undefined = replaced[0]?.start;
    for (const segment of replaced) if (segment.start === undefined) start = undefined;
    const end = rest.length === 0 ? undefined : replaced[replaced.length - 1]?.end;
    const segment: Segment<S> = {
      ...this.#make(
        cache,
        start,
        "cache",
        replaced.map((s) => s.id),
      ),
      end,
    };
    this.#commit([segment, ...rest]);
    return { segment, replaced };
  }

  /**
   * Keeps `segments` (just pruned or replaced) as retained: cursors keep reading them and lookups
   * find their items until {@link SegmentList.releaseRetained} lets them go.
   */
  retain(segments: readonly Segment<S>[]): void {
    const known = new Set(this.#segments.map((segment) => segment.id));
    for (const segment of this.#retained) known.add(segment.id);
    const added = segments.filter((segment) => !known.has(segment.id));
    if (added.length === 0) return;
    this.#retained = [...this.#retained, ...added].sort((a, b) => a.id - b.id);
    this.#commit(this.#segments);
  }

  /** Drops the retained segments `keep` rejects; returns them (their sources may be released). */
  releaseRetained(keep: (segment: Segment<S>) => boolean): Segment<S>[] {
    const released: Segment<S>[] = [];
    const kept: Segment<S>[] = [];
    for (const segment of this.#retained) (keep(segment) ? kept : released).push(segment);
    if (released.length === 0) return released;
    this.#retained = kept;
    this.#commit(this.#segments);
    return released;
  }

  /**
   * Forgets every segment and the pruned floor: the next switch starts unbounded, and cursors
   * reset because numbering may restart. Returns the dropped segments.
   */
  release(): readonly Segment<S>[] {
    const dropped = [...this.#segments, ...this.#retained];
    this.#retained = [];
    this.#pruned = undefined;
    this.#era += 1;
    this.#commit([]);
    return dropped;
  }

  /**
   * The newest segment covering `seq` whose source still holds it, and the item; retained
   * segments are searched after the list.
   */
  find(seq: number): { readonly segment: Segment<S>; readonly item: T } | undefined {
    return findIn(this.#segments, seq) ?? findIn(this.#retained, seq);
  }

  #make(source: S, start: number | undefined, kind: Segment<S>["kind"], replaces: number[]): Segment<S> {
    const id = this.#nextId++;
    return { id, start, end: undefined, source, kind, replaces };
  }

  /**
   * Registers a callback run synchronously after every change, before the next one, so cursors
   * see every segment even if it is pruned before their next read. Returns its removal.
   */
  observe(observer: () => void): () => void {
    this.#observers.add(observer);
    return () => {
      this.#observers.delete(observer);
    };
  }

  /** How many observers (cursors) are registered. */
  get observers(): number {
    return this.#observers.size;
  }

  #commit(segments: Segment<S>[]): void {
    this.#segments = segments;
    this.#epoch += 1;
    for (const observer of this.#observers) observer();
  }
}

function findIn<S extends SegmentSource<T>, T extends SegmentItem>(
  segments: readonly Segment<S>[],
  seq: number,
): { readonly segment: Segment<S>; readonly item: T } | undefined {
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment === undefined || !segmentCovers(segment, seq)) continue;
    const item = segment.source.get(seq);
    if (item !== undefined && !item.lost) return { segment, item };
  }
  return undefined;
}

function defaultOwes<T extends SegmentItem>(segment: Segment<SegmentSource<T>>): boolean {
  if (segment.source.closed) return false;
  const produced = segmentProduced(segment);
  return segment.end === undefined || produced === undefined || produced < segment.end;
}
