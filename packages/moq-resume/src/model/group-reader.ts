/**
 * Reads one group's frames for one reader, across every copy that holds it. A takeover that lands
 * mid-group continues the group in the next copy: the reader keeps its frame position and reads
 * on from whichever copy has the next frame, so it gets each frame once.
 * @module
 */
import type { SegmentSource } from "@handoff/seqlog";
import type { ReaderFeed } from "./feed.js";
import type { Group, StoredFrame } from "./group.js";

/** What {@link GroupReader.readFrame} yields (a frame is the group's own object, shared by its readers). */
export type FrameEvent =
  | StoredFrame
  /** Frames `[from, to]` are gone from every copy (the head was missed); reading goes on after. */
  | { readonly kind: "gap"; readonly from: number; readonly to: number }
  | { readonly kind: "pending" }
  | { readonly kind: "end" }
  /** The rest of the group is gone (evicted, aborted, or its track ended without it). */
  | { readonly kind: "lost" };

// The events without data are constants: a reader is asked for its next frame on every wake-up.
const PENDING: FrameEvent = { kind: "pending" };
const END: FrameEvent = { kind: "end" };
const LOST: FrameEvent = { kind: "lost" };

/** The event of a read that ended as `kind`. */
function ended(kind: "end" | "lost"): FrameEvent {
  return kind === "end" ? END : LOST;
}

/**
 * The list the copies of a group are gathered into on a read that the copy being read cannot
 * answer (every wake-up of a reader waiting for a frame): one list for all readers, not one per read.
 */
const scratch: Group[] = [];

/** One reader's view of one group. */
export class GroupReader {
  /** The group's sequence number. */
  readonly sequence: number;
  #current: Group;
  #next: number;
  #done: "end" | "lost" | undefined;
  readonly #feed: ReaderFeed<SegmentSource<Group>>;

  constructor(group: Group, feed: ReaderFeed<SegmentSource<Group>>) {
    this.sequence = group.sequence;
    this.#current = group;
    this.#next = 0;
    this.#feed = feed;
  }

  /** True once the read ended or was closed: it needs no copy any more. */
  get done(): boolean {
    return this.#done !== undefined;
  }

  /** True when the copy being read holds the rest of the group: the read needs no other copy. */
  get selfSufficient(): boolean {
    const current = this.#current;
    return current.finished && current.base <= this.#next;
  }

  /**
   * Starts the read at frame `index` (a subscriber that asked to join the group there): the
   * frames below it are not wanted, so none of them is waited for. Only moves forward.
   */
  skipTo(index: number): void {
    if (this.#done === undefined && index > this.#next) this.#next = index;
  }

  /**
   * The group's one frame, when the copy being read arrived as a datagram, is complete, and
   * nothing of it was read yet: a relay can forward it as a datagram too (then {@link close}s
   * this reader). Undefined otherwise.
   */
  datagramFrame(): { readonly payload: Uint8Array; readonly timestamp: number | undefined } | undefined {
    const group = this.#current;
    if (!group.datagram || !group.finished || group.base !== 0 || group.frameEnd !== 1 || this.#next !== 0 || this.#done !== undefined) return undefined;
    // The stored frame itself: it has the payload and the timestamp.
    return group.stored(0);
  }

  /** Stops reading (the consumer abandons the group): the copies it needed may be released. */
  close(): void {
    this.#done ??= "lost";
  }

  /** Index of the next frame this reader will get. */
  get position(): number {
    return this.#next;
  }

  /** The next frame, or why there is none now. */
  readFrame(): FrameEvent {
    if (this.#done !== undefined) return ended(this.#done);
    // Fast path: the copy being read has the next frame (the common case, no takeover).
    const next = this.#current.stored(this.#next);
    if (next !== undefined) {
      this.#next += 1;
      return next;
    }
    if (this.#current.finished && this.#current.frameEnd <= this.#next) return this.#finish("end");
    const event = this.#readCopies(this.#copies());
    // Emptied after each use, so it keeps no group alive between reads.
    scratch.length = 0;
    return event;
  }

  /** The next frame from whichever copy has it, or why there is none now. */
  #readCopies(copies: readonly Group[]): FrameEvent {
    for (const copy of copies) {
      const frame = copy.stored(this.#next);
      if (frame !== undefined) {
        this.#current = copy;
        this.#next += 1;
        return frame;
      }
    }
    for (const copy of copies) {
      if (copy.finished && copy.frameEnd <= this.#next) return this.#finish("end");
    }
    let resume: number | undefined;
    for (const copy of copies) {
      if (!copy.lost && copy.base > this.#next && copy.frameEnd > copy.base) {
        if (resume === undefined || copy.base < resume) resume = copy.base;
      }
    }
    if (resume !== undefined && !this.#headMayCome(copies)) {
      const from = this.#next;
      this.#next = resume;
      return { kind: "gap", from, to: resume - 1 };
    }
    if (copies.some((copy) => !copy.sealed)) return PENDING;
    // Every copy stopped short. A resumed track stalls for the continuation a takeover brings;
    // once the track itself ended (or nothing holds the group any more) the rest is lost.
    if (copies.every((copy) => copy.lost) || this.#feed.terminal() !== undefined) return this.#finish("lost");
    return PENDING;
  }

  /** Every copy that may hold frames of this group: the one being read first. */
  #copies(): Group[] {
    // The shared scratch list (reads are synchronous, never nested): reordered in place.
    const copies = this.#feed.holders(this.sequence, scratch);
    let at = copies.indexOf(this.#current);
    if (at === 0) return copies;
    if (at < 0) at = copies.push(this.#current) - 1;
    // The ones before it move up one; it goes first.
    copies.copyWithin(1, 0, at);
    copies[0] = this.#current;
    return copies;
  }

  /** True when some live copy that starts at or below the position is still open. */
  #headMayCome(copies: readonly Group[]): boolean {
    return copies.some((copy) => !copy.sealed && copy.base <= this.#next && copy.frameEnd === this.#next);
  }

  #finish(kind: "end" | "lost"): FrameEvent {
    this.#done = kind;
    return ended(kind);
  }
}
