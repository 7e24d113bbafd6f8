/**
 * A reader's cursor over a {@link SegmentList}. Its position is the set of sequence numbers it
 * has settled (handed out, or reported lost), never a high-water mark, so a lower item that
 * arrives after a higher one is still handed out in arrival order, and nothing is handed twice
 * however segments are switched, pruned, parked or overlapped.
 *
 * Items above the cap are held (parked) by the cursor itself, with a reference to the item, so
 * they survive the segment that delivered them being pruned or replaced. When a segment is replaced
 * by a park, the cursor moves what it had not scanned yet into the same held set, then reads the
 * cache; the settled set drops the cache's copies of what it already handed out.
 * @module
 */
import { RangeSet } from "./range-set.js";
import { checkSeq } from "./seq.js";
import { segmentCovers, type Segment, type SegmentItem, type SegmentSource } from "./segment-source.js";
import type { SegmentList } from "./segment-list.js";

/** What a cursor step yields. */
export type CursorStep<T> =
  | { readonly kind: "item"; readonly seq: number; readonly item: T }
  | { readonly kind: "lost"; readonly seq: number }
  | { readonly kind: "lagged"; readonly count: number }
  | { readonly kind: "restarted" }
  | { readonly kind: "none" };

/** Arrival order hands out every owed item as it lands; sequence order only ones above the highest. */
export type CursorOrder = "arrival" | "sequence";

/** Options of a {@link SegmentCursor}. */
export interface SegmentCursorOptions {
  /** Explicit start floor; when absent the floor is the list's latest item at creation (live edge). */
  readonly start?: number;
  /** Inclusive end cap; items above it are held until the cap rises. */
  readonly end?: number;
  /**
   * How many lanes on segments the list released (no longer listed nor retained) to keep draining
   * before folding them into the held set. Lanes on retained segments do not count.
   */
  readonly maxRetired?: number;
  /** How many held items to keep; beyond it the highest is dropped and reported lost. */
  readonly maxHeld?: number;
}

/**
 * `live`: the segment is in the list. `retained`: the list keeps it for readers that may still
 * need it. `released`: the list let it go; the lane drains it up to the retired bound.
 */
type LaneState = "live" | "retained" | "released";

interface Lane<S> {
  segment: Segment<S>;
  pos: number;
  state: LaneState;
}

/** A per-reader cursor over a segment list. */
export class SegmentCursor<S extends SegmentSource<T>, T extends SegmentItem> {
  readonly #list: SegmentList<S, T>;
  #settled = new RangeSet();
  readonly #held = new Map<number, T>();
  #lanes: Lane<S>[] = [];
  #epoch = -1;
  #era: number;
  #floor: number | undefined;
  #explicitStart: boolean;
  #cap: number | undefined;
  #highest: number | undefined;
  readonly #maxRetired: number;
  readonly #maxHeld: number;
  #lagged = 0;
  #overflow: number[] = [];
  readonly #unobserve: () => void;

  constructor(list: SegmentList<S, T>, options: SegmentCursorOptions = {}) {
    this.#list = list;
    this.#era = list.era;
    this.#explicitStart = options.start !== undefined;
    this.#floor = options.start === undefined ? list.latest() : checkSeq(options.start, "cursor start");
    this.#cap = options.end === undefined ? undefined : checkSeq(options.end, "cursor end");
    this.#maxRetired = options.maxRetired ?? 3;
    this.#maxHeld = options.maxHeld ?? 1024;
    this.#unobserve = list.observe(() => {
      this.#reconcile();
    });
    this.#reconcile();
  }

  /** Sequence numbers handed out or reported lost (a copy). */
  get settled(): RangeSet {
    return this.#settled.clone();
  }

  /** The start floor in force, if any. */
  get floor(): number | undefined {
    return this.#floor;
  }

  /** The inclusive end cap, if any. */
  get cap(): number | undefined {
    return this.#cap;
  }

  /** How many items are held (parked above the cap, or folded in from dropped lanes). */
  get heldCount(): number {
    return this.#held.size;
  }

  /** How many per-segment lanes the cursor keeps (live ones plus retired ones still draining). */
  get laneCount(): number {
    this.#reconcile();
    return this.#lanes.length;
  }

  /** True when `seq` was handed out or reported lost. */
  isSettled(seq: number): boolean {
    return this.#settled.has(seq);
  }

  /** True when every number of `[start, end]` was handed out or reported lost (no copy made). */
  isSettledRange(start: number, end: number): boolean {
    return this.#settled.hasRange(start, end);
  }

  /** Raises (or lowers) the start floor; held items below it are dropped. */
  setStart(start: number): void {
    this.#floor = checkSeq(start, "cursor start");
    this.#explicitStart = true;
    for (const seq of [...this.#held.keys()]) if (seq < start) this.#held.delete(seq);
  }

  /** Sets the inclusive end cap (undefined for none); held items at or below it are re-offered. */
  setEnd(end: number | undefined): void {
    this.#cap = end === undefined ? undefined : checkSeq(end, "cursor end");
  }

  /**
   * True when nothing is left to scan and nothing held can come out: every current segment's
   * source is closed and fully read, and lanes on pruned segments are read up to now (a pruned
   * copy that stays open does not hold the end back). Held items above the cap keep it false.
   */
  drained(): boolean {
    this.#reconcile();
    if (this.#held.size > 0) return false;
    return this.#lanes.every(
      (lane) => lane.pos >= lane.segment.source.arrivalEnd && (lane.state !== "live" || lane.segment.source.closed),
    );
  }

  /** True when the held set has items (above the cap) that may still come out. */
  get holding(): boolean {
    return this.#held.size > 0;
  }

  /**
   * The next step: a held item that the cap now admits (lowest first), else the next owed arrival
   * from the lanes (oldest segment first), or an explicit lost/lagged/restarted signal, or `none`.
   */
  next(order: CursorOrder = "arrival"): CursorStep<T> {
    if (this.#list.era !== this.#era) return this.#restart();
    this.#reconcile();
    if (this.#lagged > 0) {
      const count = this.#lagged;
      this.#lagged = 0;
      return { kind: "lagged", count };
    }
    const dropped = this.#overflow.shift();
    if (dropped !== undefined) return { kind: "lost", seq: dropped };
    const held = this.#nextHeld(order);
    if (held !== undefined) return held;
    for (const lane of this.#lanes) {
      const step = this.#scan(lane, order);
      if (step !== undefined) return step;
    }
    // Scanning may have parked past the held bound: report those losses before saying "none".
    const overflowed = this.#overflow.shift();
    if (overflowed !== undefined) return { kind: "lost", seq: overflowed };
    this.#dropDrainedRetired();
    return { kind: "none" };
  }

  /** Forgets everything (held items, lanes); the cursor must not be used afterwards. */
  close(): void {
    this.#unobserve();
    this.#held.clear();
    this.#lanes = [];
  }

  #restart(): CursorStep<T> {
    this.#era = this.#list.era;
    this.#settled = new RangeSet();
    this.#held.clear();
    this.#lanes = [];
    this.#epoch = -1;
    this.#highest = undefined;
    this.#lagged = 0;
    this.#overflow = [];
    if (!this.#explicitStart) this.#floor = this.#list.latest();
    return { kind: "restarted" };
  }

  #reconcile(): void {
    const list = this.#list;
    if (list.epoch === this.#epoch) return;
    this.#epoch = list.epoch;
    const current = new Map<number, { segment: Segment<S>; state: LaneState }>();
    const replaced = new Set<number>();
    for (const segment of list.segments) {
      current.set(segment.id, { segment, state: "live" });
      for (const id of segment.replaces) replaced.add(id);
    }
    for (const segment of list.retained) current.set(segment.id, { segment, state: "retained" });
    const lanes: Lane<S>[] = [];
    for (const lane of this.#lanes) {
      const found = current.get(lane.segment.id);
      if (found !== undefined) {
        lane.segment = found.segment;
        lane.state = found.state;
        lanes.push(lane);
      } else if (replaced.has(lane.segment.id) && lane.state !== "released") {
        // A park replaced it and nobody keeps it: hand its unread items to the held set so nothing
        // it owed depends on what the cache happens to hold.
        this.#fold(lane);
      } else {
        lane.state = "released";
        lanes.push(lane);
      }
    }
    const known = new Set(lanes.map((lane) => lane.segment.id));
    for (const { segment, state } of current.values()) {
      if (!known.has(segment.id)) lanes.push({ segment, pos: segment.source.arrivalStart, state });
    }
    // Oldest segment first: pruned and replaced lanes hold older content than live ones.
    lanes.sort((a, b) => a.segment.id - b.segment.id);
    let released = lanes.filter((lane) => lane.state === "released").length;
    while (released > this.#maxRetired) {
      const index = lanes.findIndex((lane) => lane.state === "released");
      const [oldest] = lanes.splice(index, 1);
      if (oldest === undefined) break;
      // Too many released copies to keep scanning: what they still owe moves to the held set.
      this.#fold(oldest);
      released -= 1;
    }
    this.#lanes = lanes;
  }

  /** Moves a lane's unread, owed items into the held set and forgets the lane. */
  #fold(lane: Lane<S>): void {
    const source = lane.segment.source;
    if (lane.pos < source.arrivalStart) {
      this.#lagged += source.arrivalStart - lane.pos;
      lane.pos = source.arrivalStart;
    }
    for (; lane.pos < source.arrivalEnd; lane.pos++) {
      const entry = source.arrival(lane.pos);
      if (entry === undefined || !this.#owed(lane.segment, entry.seq)) continue;
      const pinned = this.#held.get(entry.seq);
      if (pinned === undefined) this.#hold(entry.seq, entry.item);
      // A dead pinned copy gives way to a live one, so the held item survives its first holder.
      else if (pinned.lost && !entry.item.lost) this.#held.set(entry.seq, entry.item);
    }
  }

  #owed(segment: Segment<S>, seq: number): boolean {
    if (!segmentCovers(segment, seq)) return false;
    if (this.#floor !== undefined && seq < this.#floor) return false;
    return !this.#settled.has(seq);
  }

  #hold(seq: number, item: T): void {
    this.#held.set(seq, item);
    if (this.#held.size <= this.#maxHeld) return;
    let highest = seq;
    for (const key of this.#held.keys()) if (key > highest) highest = key;
    this.#held.delete(highest);
    this.#settled.add(highest);
    // The bound was hit: the reader is told which item it lost.
    this.#overflow.push(highest);
  }

  #nextHeld(order: CursorOrder): CursorStep<T> | undefined {
    while (this.#held.size > 0) {
      let best: number | undefined;
      for (const [seq, item] of this.#held) {
        const admitted = this.#cap === undefined || seq <= this.#cap;
        if ((admitted || item.lost) && (best === undefined || seq < best)) best = seq;
      }
      if (best === undefined) return undefined;
      const item = this.#held.get(best);
      this.#held.delete(best);
      if (item === undefined || this.#settled.has(best)) continue;
      const alive = this.#revive(best, item);
      if (alive === undefined) {
        this.#settled.add(best);
        return { kind: "lost", seq: best };
      }
      if (this.#cap !== undefined && best > this.#cap) {
        // Evicted while parked, but another copy still holds it: keep holding that copy.
        this.#held.set(best, alive);
        continue;
      }
      const step = this.#offer(best, alive, order);
      if (step !== undefined) return step;
    }
    return undefined;
  }

  /** The item itself if still held, else another copy from the list or a lane, else undefined. */
  #revive(seq: number, item: T): T | undefined {
    if (!item.lost) return item;
    return this.#list.find(seq)?.item ?? this.#fromLanes(seq);
  }

  /** Hands `item` out, or skips it (undefined) when sequence order has moved past it. */
  #offer(seq: number, item: T, order: CursorOrder): CursorStep<T> | undefined {
    if (order === "sequence" && this.#highest !== undefined && seq <= this.#highest) return undefined;
    this.#settled.add(seq);
    if (this.#highest === undefined || seq > this.#highest) this.#highest = seq;
    return { kind: "item", seq, item };
  }

  #fromLanes(seq: number): T | undefined {
    for (const lane of this.#lanes) {
      if (!segmentCovers(lane.segment, seq)) continue;
      const item = lane.segment.source.get(seq);
      if (item !== undefined && !item.lost) return item;
    }
    return undefined;
  }

  #scan(lane: Lane<S>, order: CursorOrder): CursorStep<T> | undefined {
    const source = lane.segment.source;
    if (lane.pos < source.arrivalStart) {
      const count = source.arrivalStart - lane.pos;
      lane.pos = source.arrivalStart;
      return { kind: "lagged", count };
    }
    while (lane.pos < source.arrivalEnd) {
      const entry = source.arrival(lane.pos);
      lane.pos += 1;
      if (entry === undefined || !this.#owed(lane.segment, entry.seq) || this.#held.has(entry.seq)) continue;
      const alive = this.#revive(entry.seq, entry.item);
      if (alive === undefined) {
        this.#settled.add(entry.seq);
        return { kind: "lost", seq: entry.seq };
      }
      if (this.#cap !== undefined && entry.seq > this.#cap) {
        this.#hold(entry.seq, alive);
        continue;
      }
      const step = this.#offer(entry.seq, alive, order);
      if (step !== undefined) return step;
    }
    return undefined;
  }

  #dropDrainedRetired(): void {
    if (!this.#lanes.some((lane) => lane.state === "released")) return;
    this.#lanes = this.#lanes.filter(
      (lane) => lane.state !== "released" || !(lane.segment.source.closed && lane.pos >= lane.segment.source.arrivalEnd),
    );
  }
}
