/**
 * What a track reader reads from: a segment list of group sources, plus the producer's terminal
 * state and a way to be woken. A plain track is a one-segment feed; a resumed track is a feed
 * whose segments change on takeovers and parks.
 * @module
 */
import type { Segment, SegmentList, SegmentSource } from "@handoff/seqlog";
import type { Group } from "./group.js";
import type { TrackInfo } from "./info.js";

/** How a track producer ended. */
export type TrackTerminal =
  | { readonly kind: "finished" }
  | { readonly kind: "aborted"; readonly reason: number }
  | { readonly kind: "dropped" };

/** A reader's preferences, as the feed needs them to compute upstream demand. */
export interface ReaderPrefs {
  /** Explicit start floor; undefined for the live edge. */
  readonly start: number | undefined;
  /** Inclusive end cap; undefined for none. */
  readonly end: number | undefined;
}

/** An attached reader, as its feed sees it. */
export interface FeedReader {
  /** The reader's start and cap, for upstream demand. */
  readonly prefs: ReaderPrefs;
  /**
   * True when the reader may still need something `segment`'s copy holds or may still bring: a
   * group it is owed and was not handed, a straggler the open copy may still deliver in range, or
   * frames past the position of a group it is reading or that group's end. `whole(sequence)` is true when a copy the
   * feed keeps anyway holds that group from its first frame to its end, so this one is not needed
   * for it.
   */
  needs(segment: Segment<SegmentSource<Group>>, whole: (sequence: number) => boolean): boolean;
}

/** The source of a track reader. */
export interface ReaderFeed<S extends SegmentSource<Group>> {
  /** The segments groups come from. */
  readonly list: SegmentList<S, Group>;
  /** The track info. */
  readonly info: TrackInfo;
  /** How the producer ended, once it has. */
  terminal(): TrackTerminal | undefined;
  /**
   * Every copy of group `sequence` the segments hold, newest segment first: a fresh list the
   * caller may reorder, or `into` (emptied first) when given, so a caller asking on every wake-up
   * can reuse one list.
   */
  holders(sequence: number, into?: Group[]): Group[];
  /** Registers a wake-up callback; returns its removal. */
  watch(listener: () => void): () => void;
  /** A reader starts (counts towards idleness, keeps the copies it needs); returns its detach. */
  attach(reader: FeedReader): () => void;
}
