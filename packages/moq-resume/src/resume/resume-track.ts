/**
 * A track fed by successive upstream copies (segments). A takeover starts the next segment past
 * the newest produced group, or at it when that group is still open (the new copy continues it
 * frame-precisely). A park replaces the segments with a warm cache so readers hand off to it and
 * newcomers still get the head of an open group. The segment list stays bounded: front segments
 * that owe nothing are pruned, and beyond the bound the front is folded into a cache rather than
 * dropped. An idle release (no readers for the linger period, by the injected clock) drops every
 * copy and lets numbering restart.
 * @module
 */
import { SegmentList, segmentCovers, type Clock, type Segment } from "@handoff/seqlog";
import type { CacheLimits } from "../model/cache.js";
import { ClosedError } from "../model/errors.js";
import type { FeedReader, ReaderFeed, TrackTerminal } from "../model/feed.js";
import type { Group } from "../model/group.js";
import { trackInfo, type TrackInfo } from "../model/info.js";
import { TrackReader, type ReaderOptions } from "../model/reader.js";
import type { Track } from "../model/track.js";
import { Watchers } from "../model/watchers.js";
import { segmentDemand, type Demand } from "./demand.js";
import { copiesIn, dropDuplicates, keptCopies } from "./kept-copies.js";
import { warmCache } from "./warm-cache.js";

/** The default bound on live segments. */
export const MAX_SEGMENTS = 3;
/** The default idle linger before an unread track drops its upstream copy (ms). */
export const TRACK_IDLE_LINGER_MS = 30_000;

/** Options of a {@link ResumeTrack}. */
export interface ResumeOptions extends CacheLimits {
  /** Name (used for cache tracks). */
  readonly name?: string;
  /** Injected time source (idle linger, cache ages); required, there is no sensible default. */
  readonly clock: Clock;
  /** Bound on segments (default {@link MAX_SEGMENTS}). */
  readonly maxSegments?: number;
  /** Idle linger in ms (default {@link TRACK_IDLE_LINGER_MS}). */
  readonly lingerMs?: number;
  /** Info used until a segment provides one. */
  readonly info?: Partial<TrackInfo>;
}

/** Where a new segment starts: group and frame (frame > 0 when it continues an open group). */
export interface Boundary {
  /** The first new group the new copy serves (the open group it continues, or the next one). */
  readonly group: number;
  /** The first frame of that group the new copy must provide. */
  readonly frame: number;
  /**
   * Present when groups older than `group` are still incomplete in every copy: the oldest of them.
   * The new upstream must be asked from here (moq-lite: SUBSCRIBE start group), so the rest of
   * those groups reaches the readers that are reading them.
   */
  readonly from?: number;
}

/** The result of a takeover: the new segment and where its copy must start. */
export interface Takeover {
  /** The segment now fed by the new copy. */
  readonly segment: Segment<Track>;
  /** Where the copy starts; undefined for the first (unbounded) segment. */
  readonly boundary: Boundary | undefined;
}

/** A resumed track: producer side of the segment list plus the feed its readers read. */
export class ResumeTrack implements ReaderFeed<Track> {
  /** The segments. */
  readonly list = new SegmentList<Track, Group>();
  /** The track's name, shared by every segment's copy. */
  readonly name: string;
  readonly #clock: Clock;
  readonly #maxSegments: number;
  readonly #lingerMs: number;
  readonly #limits: CacheLimits;
  /** True when an age bound is set: copies let go then give up what a listed copy holds whole. */
  readonly #aged: boolean;
  readonly #info: TrackInfo;
  readonly #watchers = new Watchers();
  readonly #sources = new Map<Track, () => void>();
  /** Kept copies that are still open, each with the removal of the watch for its end. */
  readonly #ends = new Map<Track, () => void>();
  readonly #readers = new Set<FeedReader>();
  #terminal: TrackTerminal | undefined;
  #idleSince: number | undefined;
  #caches = 0;

  constructor(options: ResumeOptions) {
    this.name = options.name ?? "track";
    this.#clock = options.clock;
    this.#maxSegments = Math.max(1, options.maxSegments ?? MAX_SEGMENTS);
    this.#lingerMs = options.lingerMs ?? TRACK_IDLE_LINGER_MS;
    this.#limits = {
      ...(options.maxGroups === undefined ? {} : { maxGroups: options.maxGroups }),
      ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
    };
    this.#aged = Number.isFinite(options.maxAgeMs ?? Infinity);
    this.#info = trackInfo(options.info);
    this.#idleSince = this.#clock.now();
  }

  /** The segments, oldest first. */
  get segments(): readonly Segment<Track>[] {
    return this.list.segments;
  }

  /** Track info: the first segment's, else the configured one. */
  get info(): TrackInfo {
    return this.list.segments[0]?.source.info ?? this.#info;
  }

  /** How many readers are attached. */
  get readers(): number {
    return this.#readers.size;
  }

  // --- producer ---

  /**
   * Appends a segment fed by `source` from group `start` (undefined: unbounded, only for the
   * first segment). Throws `SegmentBoundsError` for a non-advancing start, {@link ClosedError}
   * once the track ended.
   */
  switch(source: Track, start: number | undefined): Segment<Track> {
    this.#open();
    const segment = this.list.switch(source, start);
    this.#after(source);
    return segment;
  }

  /**
   * Hands the track to `source` just past the newest produced group; when that group is still
   * open, the new copy continues it from the next frame (the boundary says which).
   */
  takeover(source: Track): Takeover {
    this.#open();
    const latest = this.list.latest();
    if (latest === undefined) {
      const segment = this.list.takeover(source);
      this.#after(source);
      return { segment, boundary: segment.start === undefined ? undefined : { group: segment.start, frame: 0 } };
    }
    const copies = this.holders(latest);
    const open = copies.length > 0 && !copies.some((group) => group.finished);
    const frame = open ? Math.max(...copies.map((group) => group.frameEnd)) : 0;
    const group = open ? latest : latest + 1;
    const from = this.#oldestIncomplete(group);
    const segment = this.list.takeover(source, open, from);
    this.#after(source);
    return { segment, boundary: from === undefined ? { group, frame } : { group, frame, from } };
  }

  /**
   * Parks the track: every segment is replaced by one warm cache segment holding (merged) every
   * group they held. Readers hand off to it; newcomers get open groups from their head. Used when
   * the current copy retires (GOAWAY, route lost) before the next takeover.
   */
  park(): Segment<Track> {
    this.#open();
    const cache = this.#cache(this.list.segments);
    const { segment, replaced } = this.list.park(cache);
    this.#after(cache, replaced);
    return segment;
  }

  /** Drops every copy and lets numbering restart: the next takeover starts unbounded. */
  release(): void {
    this.#forget(this.list.release());
    this.#watchers.notify();
  }

  /** Releases the track if nobody has read it for the linger period; returns true if it did. */
  releaseIfIdle(): boolean {
    if (this.#readers.size > 0 || this.#idleSince === undefined || this.list.segments.length === 0) return false;
    if (this.#clock.now() - this.#idleSince < this.#lingerMs) return false;
    this.release();
    return true;
  }

  /**
   * Applies the age bound to every copy a reader can be handed a group from, listed or kept, and
   * lets go of the kept copies that held nothing else a reader needs; returns how many groups were
   * evicted.
   */
  expire(): number {
    let evicted = 0;
    for (const source of this.#live()) evicted += source.expire();
    if (evicted > 0) this.#retain([]);
    return evicted;
  }

  /** Ends the track cleanly: readers finish once the final segment drained. */
  finish(): void {
    this.#end({ kind: "finished" });
  }

  /** Aborts the track: readers error after their buffered groups. */
  abort(reason = 0): void {
    this.#end({ kind: "aborted", reason });
  }

  /** The producer went away: live copies keep serving; readers error (dropped) once drained. */
  drop(): void {
    this.#end({ kind: "dropped" });
  }

  // --- reads ---

  /** A reader (live edge unless `start` is given). */
  subscribe(options: ReaderOptions = {}): TrackReader<Track> {
    return new TrackReader(this, options);
  }

  /** The newest copy of group `sequence` (a fetch), or undefined if no segment holds it. */
  fetch(sequence: number): Group | undefined {
    return this.list.find(sequence)?.item;
  }

  /** What to ask `segment`'s upstream copy for, given the readers attached now. */
  demand(segment: Segment<Track>): Demand | undefined {
    return segmentDemand(
      [...this.#readers].map((reader) => reader.prefs),
      segment,
    );
  }

  // --- feed ---

  /** How the producer ended, once it has. */
  terminal(): TrackTerminal | undefined {
    return this.#terminal;
  }

  /**
   * Every live copy of `sequence`, newest segment first: the segments', then those of copies kept
   * for readers that still need them (pruned from the list or replaced by a park).
   */
  holders(sequence: number, into: Group[] = []): Group[] {
    into.length = 0;
    return copiesIn(this.list.retained, sequence, copiesIn(this.list.segments, sequence, into));
  }

  /** How many copies are kept outside the segment list for readers that still need them. */
  get retained(): number {
    return this.list.retained.length;
  }

  /** Registers a wake-up callback; returns its removal. */
  watch(listener: () => void): () => void {
    return this.#watchers.add(listener);
  }

  /** Counts a reader in (it stops the idle clock, keeps what it needs); returns its detach. */
  attach(reader: FeedReader): () => void {
    this.#readers.add(reader);
    this.#idleSince = undefined;
    return () => {
      if (!this.#readers.delete(reader)) return;
      if (this.#readers.size === 0) this.#idleSince = this.#clock.now();
      this.#retain([]);
    };
  }

  // --- internals ---

  #open(): void {
    if (this.#terminal !== undefined) throw new ClosedError(`track ${this.name}`);
  }

  #end(terminal: TrackTerminal): void {
    if (this.#terminal !== undefined) return;
    this.#terminal = terminal;
    this.#watchers.notify();
  }

  #cache(segments: readonly Segment<Track>[]): Track {
    this.#caches += 1;
    return warmCache(segments, { name: `${this.name}#cache${String(this.#caches)}`, clock: this.#clock, ...this.#limits });
  }

  /** Watches a new source, bounds the list, keeps what readers need of `left`, wakes readers. */
  #after(source: Track, left: readonly Segment<Track>[] = []): void {
    this.#watchSource(source);
    this.#retain([...left, ...this.#bound()]);
    this.#watchers.notify();
  }

  #watchSource(source: Track): void {
    if (this.#sources.has(source)) return;
    this.#sources.set(
      source,
      source.watch(() => {
        this.#watchers.notify();
      }),
    );
  }

  /** Bounds the list; returns the segments that left it (pruned or folded into a cache). */
  #bound(): Segment<Track>[] {
    const left = this.list.prune(this.#maxSegments, (segment) => this.#owes(segment));
    const segments = this.list.segments;
    // Over the bound and the front still owes something: fold the front (never the live tail)
    // into one cache, losing nothing. A cache plus the tail is the least this can reach.
    const count = Math.min(segments.length - this.#maxSegments + 1, segments.length - 1);
    if (count < 2) return left;
    const front = segments.slice(0, count);
    const cache = this.#cache(front);
    const { replaced } = this.list.park(cache, front.length);
    this.#watchSource(cache);
    return [...left, ...replaced];
  }

  /**
   * Keeps the copies that left the list while they are open, some attached reader may still need
   * something they hold, or they hold the head of a group another copy serves split (see
   * kept-copies.ts), and releases every other kept copy, without the groups the list holds whole.
   */
  #retain(left: readonly Segment<Track>[]): void {
    this.list.retain(left);
    const kept = keptCopies(this.list.segments, this.list.retained, this.#readers);
    const released = this.list.releaseRetained((segment) => kept.has(segment));
    if (released.length > 0) {
      const live = this.#live();
      this.#forget(released, live);
      // Only the age bound needs it (a duplicate is as good as the listed copy until that expires),
      // and only once forgotten, so the evictions wake no reader: none waits on a copy held whole.
      if (this.#aged) dropDuplicates(released, this.list.segments, live);
    }
    this.#watchEnds();
  }

  /**
   * Watches every kept copy that is still open (kept for that alone, maybe), so it is looked at
   * again once it ends. Only those: a check on every frame of the live copy would cost the fast path.
   */
  #watchEnds(): void {
    for (const segment of this.list.retained) {
      const source = segment.source;
      if (source.closed || this.#ends.has(source)) continue;
      this.#ends.set(
        source,
        source.watch(() => {
          if (!source.closed) return;
          this.#unwatchEnd(source);
          this.#retain([]);
        }),
      );
    }
  }

  #unwatchEnd(source: Track): void {
    this.#ends.get(source)?.();
    this.#ends.delete(source);
  }

  /** The oldest group below `boundary` no copy holds whole, if any: the new copy must continue it. */
  #oldestIncomplete(boundary: number): number | undefined {
    let oldest: number | undefined;
    for (const segment of this.list.segments) {
      for (const group of segment.source.groups()) {
        const sequence = group.sequence;
        if (sequence >= boundary || (oldest !== undefined && sequence >= oldest)) continue;
        if (group.lost || group.finished || !segmentCovers(segment, sequence)) continue;
        if (this.holders(sequence).some((copy) => copy.finished)) continue;
        oldest = sequence;
      }
    }
    return oldest;
  }

  /** A segment owes while its copy may still produce in range, or it holds part of an open group. */
  #owes(segment: Segment<Track>): boolean {
    const source = segment.source;
    if (!source.closed && (segment.end === undefined || source.latest === undefined || source.latest < segment.end)) {
      return true;
    }
    for (const group of source.groups()) if (!group.finished && !group.lost) return true;
    return false;
  }

  /** The sources of every listed or kept segment. */
  #live(): Set<Track> {
    return new Set([...this.list.segments, ...this.list.retained].map((segment) => segment.source));
  }

  #forget(segments: readonly Segment<Track>[], live = this.#live()): void {
    for (const segment of segments) {
      if (live.has(segment.source)) continue;
      this.#sources.get(segment.source)?.();
      this.#sources.delete(segment.source);
      this.#unwatchEnd(segment.source);
    }
  }
}
