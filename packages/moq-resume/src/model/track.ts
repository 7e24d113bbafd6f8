/**
 * A track copy: a named series of groups with a bounded cache, a producer API (create groups,
 * finish, abort, drop) and readers. It is also a segment source, so a resumed track can splice
 * several copies together.
 * @module
 */
import { SegmentList, checkSeq, type ArrivalEntry, type Clock, type SegmentSource } from "@handoff/seqlog";
import { GroupCache, type CacheLimits } from "./cache.js";
import { ClosedError, DuplicateGroupError } from "./errors.js";
import type { FeedReader, ReaderFeed, TrackTerminal } from "./feed.js";
import { Group, type GroupOptions } from "./group.js";
import { trackInfo, type TrackInfo } from "./info.js";
import { TrackReader, type ReaderOptions } from "./reader.js";
import { Watchers } from "./watchers.js";

/** Options of a track. */
export interface TrackOptions extends CacheLimits {
  /** Time source for group ages: the app's monotonic clock (a test passes a ManualClock). */
  readonly clock: Clock;
  /** Track info; missing fields get defaults. */
  readonly info?: Partial<TrackInfo>;
}

/** A track copy: producer side plus segment source. */
export class Track implements SegmentSource<Group>, ReaderFeed<Track> {
  /** The track's name within its broadcast. */
  readonly name: string;
  /** The track's info. */
  readonly info: TrackInfo;
  readonly #clock: Clock;
  readonly #cache: GroupCache;
  readonly #watchers = new Watchers();
  /** Told of the end alone ({@link Track.onEnd}), after the watchers. */
  readonly #ends = new Set<(terminal: TrackTerminal) => void>();
  #terminal: TrackTerminal | undefined;
  #latest: number | undefined;
  #list: SegmentList<Track, Group> | undefined;
  #readers = 0;
  /**
   * Inside a cache operation ({@link Track.#quietly}): the groups it evicts wake nobody one by one,
   * the operation wakes the readers once at its end.
   */
  #quiet = false;

  constructor(name: string, options: TrackOptions) {
    this.name = name;
    this.info = trackInfo(options.info);
    this.#clock = options.clock;
    this.#cache = new GroupCache(options);
  }

  // --- producer ---

  /**
   * Creates group `sequence` (groups may arrive in any order). Throws {@link ClosedError} once the
   * track ended and {@link DuplicateGroupError} if the cache still holds that sequence.
   */
  createGroup(sequence: number, options: GroupOptions = {}): Group {
    return this.#create(sequence, options, undefined);
  }

  /**
   * Files group `sequence` as it arrived in one datagram: one frame, complete, and marked
   * `datagram`, so readers see it whole from the moment it appears. Throws as
   * {@link createGroup} does.
   */
  createDatagramGroup(sequence: number, payload: Uint8Array, timestamp?: number): Group {
    return this.#create(sequence, { datagram: true }, (group) => {
      group.write(payload, timestamp);
      group.finish();
    });
  }

  #create(sequence: number, options: GroupOptions, fill: ((group: Group) => void) | undefined): Group {
    checkSeq(sequence, "group sequence");
    if (this.#terminal !== undefined) throw new ClosedError(`track ${this.name}`);
    if (this.#cache.get(sequence) !== undefined) throw new DuplicateGroupError(sequence);
    const cache = this.#cache;
    // Quiet until it is filed: readers must not see a group being filled before it appears.
    let filed = false;
    const group = new Group(
      sequence,
      { createdAt: this.#clock.now(), ...options },
      () => {
        if (filed && !this.#quiet) this.#watchers.notify();
      },
      (delta) => {
        cache.account(delta);
      },
    );
    // A full cache evicts its oldest group for each new one: one wake-up for both, not two.
    this.#quietly(() => {
      cache.expire(this.#clock.now());
      fill?.(group);
      filed = true;
      cache.insert(group);
    });
    if (this.#latest === undefined || sequence > this.#latest) this.#latest = sequence;
    return group;
  }

  /** Creates the group after the newest one (0 for the first). */
  appendGroup(): Group {
    return this.createGroup(this.#latest === undefined ? 0 : this.#latest + 1);
  }

  /** Ends the track cleanly: readers finish once drained. */
  finish(): void {
    this.#end({ kind: "finished" });
  }

  /** Aborts the track with an application reason: readers error once buffered groups are drained. */
  abort(reason = 0): void {
    this.#end({ kind: "aborted", reason });
  }

  /** The producer went away without finishing: readers error (dropped) once drained. */
  drop(): void {
    this.#end({ kind: "dropped" });
  }

  /** Evicts groups older than the age bound; returns how many (their readers are woken). */
  expire(): number {
    return this.#quietly(
      () => this.#cache.expire(this.#clock.now()),
      (evicted) => evicted > 0,
    );
  }

  /**
   * Evicts the oldest held group (an owner bounding the copy in bytes); returns it, or undefined
   * when nothing is held. Its readers are told it is lost.
   */
  evictOldest(): Group | undefined {
    return this.#quietly(
      () => this.#cache.evictOldest(),
      (group) => group !== undefined,
    );
  }

  /**
   * Evicts group `sequence` if held (an owner letting go of a copy another copy holds whole);
   * returns it, or undefined when not held. Its readers are told it is lost (the group's own
   * wake-up: one group, one wake-up, no need to hold it back as cache operations do).
   */
  evict(sequence: number): Group | undefined {
    return this.#cache.evict(sequence);
  }

  /** Evicts every group (the copy is being discarded). */
  clear(): void {
    this.#quietly(() => {
      this.#cache.clear();
    });
  }

  // --- state ---

  /** How the producer ended, once it has. */
  terminal(): TrackTerminal | undefined {
    return this.#terminal;
  }

  /** True once the track ended (no more groups). */
  get closed(): boolean {
    return this.#terminal !== undefined;
  }

  /** The highest sequence ever created. */
  get latest(): number | undefined {
    return this.#latest;
  }

  /** Payload bytes the cache holds. */
  get bytes(): number {
    return this.#cache.bytes;
  }

  /** How many groups the cache holds. */
  get cached(): number {
    return this.#cache.size;
  }

  /** The held group `sequence`, if any. */
  group(sequence: number): Group | undefined {
    return this.#cache.get(sequence);
  }

  /** The held groups in arrival order. */
  groups(): IterableIterator<Group> {
    return this.#cache.groups();
  }

  /** How many readers are attached. */
  get readers(): number {
    return this.#readers;
  }

  // --- segment source ---

  /** The lowest arrival index still readable (the cache's). */
  get arrivalStart(): number {
    return this.#cache.arrivalStart;
  }

  /** One past the highest arrival index so far. */
  get arrivalEnd(): number {
    return this.#cache.arrivalEnd;
  }

  /** The group at an absolute arrival index, if still cached; readers walk groups in arrival order. */
  arrival(index: number): ArrivalEntry<Group> | undefined {
    return this.#cache.arrival(index);
  }

  /** The cached group with this sequence number, if any. */
  get(sequence: number): Group | undefined {
    return this.#cache.get(sequence);
  }

  // --- reader feed ---

  /** A one-segment list over this copy, for plain readers. */
  get list(): SegmentList<Track, Group> {
    if (this.#list === undefined) {
      this.#list = new SegmentList<Track, Group>();
      this.#list.switch(this, undefined);
    }
    return this.#list;
  }

  /** The copy of `sequence` this track holds, as a one-element list. */
  holders(sequence: number, into: Group[] = []): Group[] {
    into.length = 0;
    const group = this.#cache.get(sequence);
    if (group !== undefined) into.push(group);
    return into;
  }

  /** Registers a wake-up callback; returns its removal. */
  watch(listener: () => void): () => void {
    return this.#watchers.add(listener);
  }

  /**
   * Registers `listener` for the end alone (finish, abort or drop): called once, with how the track
   * ended, after the {@link watch} wake-ups of that change. A holder that only needs to know when
   * the copy is over is not woken by every group and frame. A track that has already ended never
   * calls it (read {@link terminal} first); returns its removal.
   */
  onEnd(listener: (terminal: TrackTerminal) => void): () => void {
    if (this.#terminal !== undefined) return noop;
    this.#ends.add(listener);
    return () => {
      this.#ends.delete(listener);
    };
  }

  /** Counts a reader in; returns its detach. */
  attach(_reader: FeedReader): () => void {
    this.#readers += 1;
    let attached = true;
    return () => {
      if (attached) this.#readers -= 1;
      attached = false;
    };
  }

  /** A reader of this track (live edge unless `start` is given). */
  subscribe(options: ReaderOptions = {}): TrackReader<Track> {
    return new TrackReader(this, options);
  }

  /**
   * Runs a cache operation with the groups' own wake-ups held back, then wakes the readers once
   * (unless `changed` says its result changed nothing) and returns the result: a wake-up per
   * evicted group (and another for a new group) cost one reader pump per subscriber each.
   */
  #quietly<R>(operation: () => R, changed: (result: R) => boolean = () => true): R {
    this.#quiet = true;
    let result: R;
    try {
      result = operation();
    } finally {
      this.#quiet = false;
    }
    if (changed(result)) this.#watchers.notify();
    return result;
  }

  #end(terminal: TrackTerminal): void {
    if (this.#terminal !== undefined) return;
    this.#terminal = terminal;
    // Open groups keep their frames (they may drain, or another copy may continue them) but
    // get no more from this copy. A clean finish leaves in-flight groups to their producers.
    if (terminal.kind !== "finished") for (const group of this.#cache.groups()) group.seal();
    this.#watchers.notify();
    // Each is told once and let go; one removed by an earlier one's call is not told.
    for (const listener of this.#ends) {
      this.#ends.delete(listener);
      listener(terminal);
    }
  }
}

function noop(): void {
  // The removal of a listener never registered (the track had ended).
}
