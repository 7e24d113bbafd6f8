/**
 * A group: a sequence number and an append-only list of frames. A copy of a group may start past
 * frame 0 (`base`), when its upstream joined mid-group; frame indexes are the group's own, so two
 * copies of one group agree on which frame is which.
 * @module
 */
import type { SegmentItem } from "@handoff/seqlog";
import { ClosedError } from "./errors.js";

/** Lifecycle of a group. `evicted` and `aborted` mean its frames are gone. */
export type GroupState = "open" | "finished" | "aborted" | "evicted";

/** Options of a new group. */
export interface GroupOptions {
  /** Index of the first frame this copy holds (default 0). */
  readonly firstFrame?: number;
  /** Creation time in ms (from the track's clock), for age-based eviction. */
  readonly createdAt?: number;
  /** The group arrived as one datagram (lite-05: a single-frame group on the unreliable channel). */
  readonly datagram?: boolean;
}

/**
 * A frame as readers get it. Made once when the frame is written and handed to every reader as
 * is (readers of one track share it): a relay's readers used to make one per frame per subscriber.
 */
export interface StoredFrame {
  /** Tells a frame from the other read events. */
  readonly kind: "frame";
  /** The frame's index in the group. */
  readonly index: number;
  /** The frame's bytes, as the publisher sent them. */
  readonly payload: Uint8Array;
  /** What the publisher wrote the frame with (lite-05), undefined when it gave none. */
  readonly timestamp: number | undefined;
}

/** A group producer, and the shared state its readers read. */
export class Group implements SegmentItem {
  /** The group's sequence number. */
  readonly sequence: number;
  /** Index of the first frame this copy holds. */
  readonly base: number;
  /** When the group was created (ms). */
  readonly createdAt: number;
  /** True when the group arrived as a datagram: a relay forwards it the same way where it can. */
  readonly datagram: boolean;
  #frames: StoredFrame[] = [];
  #state: GroupState = "open";
  #sealed = false;
  #bytes = 0;
  readonly #notify: () => void;
  readonly #account: (delta: number) => void;

  /**
   * @param notify called on every change, so readers can be woken
   * @param account called with every change of the payload bytes held (a write adds, an abort or
   *   eviction takes them all back), so a cache can keep its byte count without walking groups
   */
  constructor(sequence: number, options: GroupOptions = {}, notify: () => void = noop, account: (delta: number) => void = noop) {
    this.sequence = sequence;
    this.base = options.firstFrame ?? 0;
    this.createdAt = options.createdAt ?? 0;
    this.datagram = options.datagram ?? false;
    this.#notify = notify;
    this.#account = account;
  }

  /** The lifecycle state. */
  get state(): GroupState {
    return this.#state;
  }

  /** True once the frames are gone (evicted or aborted): readers get an explicit loss. */
  get lost(): boolean {
    return this.#state === "evicted" || this.#state === "aborted";
  }

  /** True once the group is complete. */
  get finished(): boolean {
    return this.#state === "finished";
  }

  /** One past the highest frame index held. */
  get frameEnd(): number {
    return this.base + this.#frames.length;
  }

  /** Bytes of payload held. */
  get byteLength(): number {
    return this.#bytes;
  }

  /**
   * True once no more frames can reach this copy (its track copy ended while the group was
   * open). The group stays readable: another copy may continue it.
   */
  get sealed(): boolean {
    return this.#sealed || this.#state !== "open";
  }

  /** Marks that this copy will get no more frames (its upstream went away). */
  seal(): void {
    if (this.#sealed) return;
    this.#sealed = true;
    this.#notify();
  }

  /** The frame at `index`, if this copy holds it. */
  frame(index: number): Uint8Array | undefined {
    return this.stored(index)?.payload;
  }

  /** The frame at `index` as readers get it, if this copy holds it. */
  stored(index: number): StoredFrame | undefined {
    return this.lost ? undefined : this.#frames[index - this.base];
  }

  /**
   * The timestamp frame `index` was written with (track timescale units), if this copy holds the
   * frame and it was given one; undefined otherwise (a publisher without timestamps).
   */
  frameTimestamp(index: number): number | undefined {
    return this.stored(index)?.timestamp;
  }

  /**
   * Appends a frame, with its timestamp when the publisher sent one (lite-05), and returns its
   * index. Throws {@link ClosedError} unless the group is open.
   */
  write(payload: Uint8Array, timestamp?: number): number {
    if (this.#state !== "open" || this.#sealed) throw new ClosedError(`group ${String(this.sequence)}`);
    const index = this.frameEnd;
    this.#frames.push({ kind: "frame", index, payload, timestamp });
    this.#bytes += payload.byteLength;
    this.#notify();
    this.#account(payload.byteLength);
    return index;
  }

  /** Marks the group complete. No-op unless open. */
  finish(): void {
    this.#close("finished");
  }

  /** Aborts the group: its frames are dropped and readers are told the rest is lost. */
  abort(): void {
    this.#close("aborted");
  }

  /** Evicts the group from its cache: like abort, but the cause is the cache bound. */
  evict(): void {
    if (this.lost) return;
    this.#state = "evicted";
    this.#drop();
    this.#notify();
  }

  #close(state: "finished" | "aborted"): void {
    if (this.#state !== "open") return;
    this.#state = state;
    if (state === "aborted") this.#drop();
    this.#notify();
  }

  #drop(): void {
    const bytes = this.#bytes;
    this.#frames = [];
    this.#bytes = 0;
    if (bytes > 0) this.#account(-bytes);
  }
}

function noop(): void {
  // Groups made outside a track have nobody to wake and no cache to tell.
}
