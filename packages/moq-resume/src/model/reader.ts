/**
 * A track reader: hands out groups in arrival order (`recvGroup`) or sequence order
 * (`nextGroup`), each at most once, from whatever segments feed the track. Its position is the set
 * of groups it was handed (a {@link SegmentCursor}), with a start floor and an inclusive end cap
 * that parks groups above it until the cap rises. Finish, abort and a dropped producer surface
 * only after the reader drained what it is owed.
 * @module
 */
import { SegmentCursor, type CursorOrder, type RangeSet, type Segment, type SegmentSource } from "@handoff/seqlog";
import { TrackAbortedError, TrackDroppedError, type ModelError } from "./errors.js";
import type { FeedReader, ReaderFeed, ReaderPrefs } from "./feed.js";
import type { Group } from "./group.js";
import { GroupReader } from "./group-reader.js";
import type { TrackInfo } from "./info.js";
import { readerNeeds } from "./reader-needs.js";

/** What a read of the next group yields. */
export type GroupEvent =
  | { readonly kind: "group"; readonly group: GroupReader }
  /** Group `sequence` was owed but is gone (evicted or aborted before it could be handed out). */
  | { readonly kind: "lost"; readonly sequence: number }
  /** `count` owed groups were forgotten before this reader looked (it lagged too far). */
  | { readonly kind: "lagged"; readonly count: number }
  /** The upstream restarted numbering (idle release); positions were reset. */
  | { readonly kind: "restarted" }
  /** Nothing now; wait for a wake-up. */
  | { readonly kind: "pending" }
  /** The track finished and everything owed was handed out. */
  | { readonly kind: "finished" }
  /** The track was aborted or dropped; everything owed before it was handed out. */
  | { readonly kind: "error"; readonly error: ModelError };

// Events without data are constants: a relay asks every reader of a track on every wake-up.
const PENDING: GroupEvent = { kind: "pending" };
const FINISHED: GroupEvent = { kind: "finished" };

/** Options of a reader. */
export interface ReaderOptions {
  /** Start floor; when absent the reader starts at the newest group (live edge). */
  readonly start?: number;
  /** Inclusive end cap. */
  readonly end?: number;
  /** Cursors on pruned segments kept draining (default 3). */
  readonly maxRetired?: number;
  /** Groups parked above the cap at most (default 1024). */
  readonly maxParked?: number;
}

/** Past this many reads kept, the ended ones are dropped from the list. */
const READING_COMPACT = 32;

/** A reader of one track. */
export class TrackReader<S extends SegmentSource<Group> = SegmentSource<Group>> implements FeedReader {
  readonly #feed: ReaderFeed<S>;
  readonly #cursor: SegmentCursor<S, Group>;
  readonly #detach: () => void;
  #closed = false;
  #explicitStart: boolean;
  /**
   * Groups handed out, for the copies their reads still need. Reads that ended are skipped and
   * compacted away now and then: no bookkeeping per frame or per finished group.
   */
  #reading: GroupReader[] = [];

  constructor(feed: ReaderFeed<S>, options: ReaderOptions = {}) {
    this.#feed = feed;
    this.#cursor = new SegmentCursor(feed.list, {
      ...(options.start === undefined ? {} : { start: options.start }),
      ...(options.end === undefined ? {} : { end: options.end }),
      ...(options.maxRetired === undefined ? {} : { maxRetired: options.maxRetired }),
      ...(options.maxParked === undefined ? {} : { maxHeld: options.maxParked }),
    });
    this.#explicitStart = options.start !== undefined;
    this.#detach = feed.attach(this);
  }

  /** The track info. */
  get info(): TrackInfo {
    return this.#feed.info;
  }

  /** The reader's start and cap, as upstream demand sees them. */
  get prefs(): ReaderPrefs {
    return { start: this.#explicitStart ? this.#cursor.floor : undefined, end: this.#cursor.cap };
  }

  /** Groups handed out or reported lost (a copy). */
  get settled(): RangeSet {
    return this.#cursor.settled;
  }

  /** True when every group of `[start, end]` was handed out or reported lost (cheap: no copy). */
  hasSettled(start: number, end: number): boolean {
    return this.#cursor.isSettledRange(start, end);
  }

  /** Groups parked above the cap. */
  get parked(): number {
    return this.#cursor.heldCount;
  }

  /** Per-segment cursors kept (bounded; released as they drain). */
  get cursors(): number {
    return this.#cursor.laneCount;
  }

  /** The next group in arrival order: late lower groups included. */
  recvGroup(): GroupEvent {
    return this.#read("arrival");
  }

  /** The next group above the highest handed out (sequence order; late lower groups are skipped). */
  nextGroup(): GroupEvent {
    return this.#read("sequence");
  }

  /** Raises (or lowers) the start floor; parked groups below it are dropped. */
  startAt(sequence: number): void {
    this.#explicitStart = true;
    this.#cursor.setStart(sequence);
  }

  /** Sets the inclusive end cap (undefined for none); parked groups within it come out next. */
  endAt(sequence: number | undefined): void {
    this.#cursor.setEnd(sequence);
  }

  /** Registers a wake-up callback (called on any change that may unblock a read). */
  watch(listener: () => void): () => void {
    return this.#feed.watch(listener);
  }

  /** Stops reading: releases the cursor and counts the reader out of the track. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#cursor.close();
    this.#reading = [];
    this.#detach();
  }

  /** Whether this reader may still need what `segment`'s copy holds or may bring; the resumed track keeps the copy while any reader does (see `ReaderFeed.needs`). */
  needs(segment: Segment<SegmentSource<Group>>, whole: (sequence: number) => boolean): boolean {
    const cursor = this.#cursor;
    return readerNeeds(
      {
        floor: cursor.floor,
        settled: (seq) => cursor.isSettled(seq),
        settledRange: (start, end) => cursor.isSettledRange(start, end),
        reading: this.#reading,
      },
      segment,
      whole,
    );
  }

  #read(order: CursorOrder): GroupEvent {
    if (this.#closed) return FINISHED;
    const step = this.#cursor.next(order);
    switch (step.kind) {
      case "item": {
        const group = new GroupReader(step.item, this.#feed);
        if (this.#reading.length >= READING_COMPACT) compact(this.#reading);
        this.#reading.push(group);
        return { kind: "group", group };
      }
      case "lost":
        return { kind: "lost", sequence: step.seq };
      case "lagged":
        return { kind: "lagged", count: step.count };
      case "restarted":
        return { kind: "restarted" };
      case "none":
        return this.#end();
      default: {
        const never: never = step;
        return never;
      }
    }
  }

  #end(): GroupEvent {
    const terminal = this.#feed.terminal();
    if (terminal === undefined) return PENDING;
    switch (terminal.kind) {
      case "aborted":
        // Buffered groups were drained above; live copies are not waited for.
        return { kind: "error", error: new TrackAbortedError(terminal.reason) };
      case "finished":
        return this.#cursor.drained() ? FINISHED : PENDING;
      case "dropped":
        return this.#cursor.drained() ? { kind: "error", error: new TrackDroppedError() } : PENDING;
      default: {
        const never: never = terminal;
        return never;
      }
    }
  }
}

/** Drops the ended reads in place (a filtered copy would be one more long-lived array per compaction). */
function compact(reading: GroupReader[]): void {
  let kept = 0;
  for (const read of reading) if (!read.done) reading[kept++] = read;
  reading.length = kept;
}
