/**
 * A bounded, ordered queue whose entries carry sequence numbers, with an in-flight lane and an
 * epoch fence.
 *
 * - `pushBack` appends with the next sequence number; `take` moves the head into flight; `ack`
 *   releases an in-flight entry; `requeueInflight` puts unacknowledged entries back at the front in
 *   their original order (a resumed session resends them first); `requeueFront` restores entries
 *   whose numbers are below the head (recovery after a restart).
 * - Bounds hold over everything the queue holds (queued and in flight), by count and by bytes. A
 *   push past a bound is refused with an explicit result; the caller applies its policy and counts it.
 * - `clear` discards everything and bumps the epoch. `pushIfEpoch` refuses a push built under an
 *   older epoch: a plan made for the discarded owner can never land in its replacement's queue.
 * @module
 */
import { Deque } from "./deque.js";
import { Fence } from "./generation.js";
import { SeqCounter } from "./seq.js";

/** One queued or in-flight entry. */
export interface QueueEntry<T> {
  /** The entry's sequence number, unique within the queue and increasing in push order. */
  readonly seq: number;
  /** The payload. */
  readonly value: T;
  /** What the entry counts against the byte bound. */
  readonly bytes: number;
}

/** Bounds over everything the queue holds, queued and in flight together. */
export interface QueueLimits {
  /** Most entries held. */
  readonly maxCount: number;
  /** Most bytes held (sum of entries' `bytes`). */
  readonly maxBytes: number;
}

/** Why a push was refused. */
export type PushRefusal = "count" | "bytes" | "stale-epoch";

/** The outcome of a push: the sequence number given, or why nothing was queued. */
export type PushResult = { readonly ok: true; readonly seq: number } | { readonly ok: false; readonly reason: PushRefusal };

/** The outcome of {@link SeqQueue.requeueFront}: all entries restored, or none and why. */
export type RequeueResult = { readonly ok: true } | { readonly ok: false; readonly reason: "count" | "bytes" };

/** Options for a new queue. */
export interface SeqQueueOptions {
  /** Bounds; unbounded when omitted. */
  readonly limits?: Partial<QueueLimits>;
  /** The starting epoch (e.g. restored from storage). Default 0. */
  readonly epoch?: number;
  /** The first sequence number to assign (e.g. one past the highest persisted). Default 0. */
  readonly nextSeq?: number;
}

/** The result of {@link SeqQueue.clear}. */
export interface Cleared<T> {
  /** The epoch after the clear. */
  readonly epoch: number;
  /** Everything that was discarded (queued and in flight), in sequence order. */
  readonly dropped: QueueEntry<T>[];
}

function checkBytes(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`entry size must be a non-negative integer, got ${String(bytes)}`);
}

/** A bounded, sequenced queue with an in-flight lane and an epoch fence. */
export class SeqQueue<T> {
  readonly #queued = new Deque<QueueEntry<T>>();
  // Made on the first take: a queue that never sends holds no table (memory per idle session).
  #inflight: Map<number, QueueEntry<T>> | undefined;
  readonly #seqs: SeqCounter;
  readonly #limits: QueueLimits;
  /** Moved on by every clear: a push planned under an older epoch is refused. */
  readonly #epoch: Fence;
  #bytes = 0;

  constructor(options: SeqQueueOptions = {}) {
    this.#limits = {
      maxCount: options.limits?.maxCount ?? Number.POSITIVE_INFINITY,
      maxBytes: options.limits?.maxBytes ?? Number.POSITIVE_INFINITY,
    };
    this.#epoch = new Fence(options.epoch ?? 0);
    this.#seqs = new SeqCounter(options.nextSeq ?? 0);
  }

  /** The current epoch; bumped by every {@link SeqQueue.clear}. */
  get epoch(): number {
    return this.#epoch.current;
  }

  /** The sequence number the next push will get. */
  get nextSeq(): number {
    return this.#seqs.peek;
  }

  /** The bounds in force. */
  get limits(): QueueLimits {
    return this.#limits;
  }

  /** Entries waiting to be taken. */
  get queuedCount(): number {
    return this.#queued.length;
  }

  /** Entries taken and not yet acknowledged. */
  get inflightCount(): number {
    return this.#inflight?.size ?? 0;
  }

  /** Everything held: queued plus in flight. */
  get count(): number {
    return this.#queued.length + (this.#inflight?.size ?? 0);
  }

  /** Bytes held: queued plus in flight. */
  get bytes(): number {
    return this.#bytes;
  }

  #refusal(adding: number, bytes: number): "count" | "bytes" | undefined {
    if (this.count + adding > this.#limits.maxCount) return "count";
    if (this.#bytes + bytes > this.#limits.maxBytes) return "bytes";
    return undefined;
  }

  /** Appends `value` with the next sequence number, unless a bound would be passed. */
  pushBack(value: T, bytes: number): PushResult {
    checkBytes(bytes);
    const reason = this.#refusal(1, bytes);
    if (reason !== undefined) return { ok: false, reason };
    const seq = this.#seqs.next();
    this.#queued.pushBack({ seq, value, bytes });
    this.#bytes += bytes;
    return { ok: true, seq };
  }

  /**
   * Like {@link SeqQueue.pushBack}, but only while the queue is still at `epoch`: a push built for
   * an owner whose queue was since cleared is refused with `stale-epoch`.
   */
  pushIfEpoch(epoch: number, value: T, bytes: number): PushResult {
    if (!this.#epoch.admits(epoch)) return { ok: false, reason: "stale-epoch" };
    return this.pushBack(value, bytes);
  }

  /** The entry {@link SeqQueue.take} would return next. */
  peek(): QueueEntry<T> | undefined {
    return this.#queued.peekFront();
  }

  /** Moves the head into flight and returns it; it stays held (and counted) until acknowledged. */
  take(): QueueEntry<T> | undefined {
    const entry = this.#queued.popFront();
    if (entry !== undefined) (this.#inflight ??= new Map()).set(entry.seq, entry);
    return entry;
  }

  /**
   * Moves every queued entry matching `predicate` into flight, out of turn, and returns them in
   * order (e.g. MQTT PUBREL resends, which no flow-control quota holds back behind the head).
   */
  takeWhere(predicate: (entry: QueueEntry<T>) => boolean): QueueEntry<T>[] {
    const taken = this.#queued.filter((entry) => !predicate(entry));
    for (const entry of taken) (this.#inflight ??= new Map()).set(entry.seq, entry);
    return taken;
  }

  /** Releases the in-flight entry `seq`; returns it, or undefined if it was not in flight. */
  ack(seq: number): QueueEntry<T> | undefined {
    const entry = this.#inflight?.get(seq);
    if (entry === undefined) return undefined;
    this.#inflight?.delete(seq);
    this.#bytes -= entry.bytes;
    return entry;
  }

  /** The in-flight entry `seq`, if any. */
  inflightEntry(seq: number): QueueEntry<T> | undefined {
    return this.#inflight?.get(seq);
  }

  /**
   * Puts every unacknowledged in-flight entry back in the queue, merged by sequence number so the
   * queue's order is the order of the original pushes. Returns how many moved.
   */
  requeueInflight(): number {
    const moved = this.#inflight?.size ?? 0;
    if (moved === 0) return 0;
    const back = [...(this.#inflight?.values() ?? [])].sort((a, b) => a.seq - b.seq);
    this.#inflight?.clear();
    this.#mergeFront(back);
    return moved;
  }

  /**
   * Restores entries that belong before the current head (e.g. persisted in-flight messages after
   * a restart). They must be in increasing order, below every held entry's number and below
   * {@link SeqQueue.nextSeq}; a violation is a programming error and throws. All or nothing: if
   * they would pass a bound, nothing is restored and the reason is returned — unless
   * `allowOverLimit` is set, for entries that were admitted under the bound once already (a
   * restart must not lose acknowledged data because a limit was lowered); later pushes are then
   * refused until the queue is back under its bounds.
   */
  requeueFront(entries: readonly QueueEntry<T>[], options: { readonly allowOverLimit?: boolean } = {}): RequeueResult {
    let previous = -1;
    let lowestHeld = Math.min(this.#queued.peekFront()?.seq ?? Number.POSITIVE_INFINITY, this.nextSeq);
    for (const seq of this.#inflight?.keys() ?? []) lowestHeld = Math.min(lowestHeld, seq);
    let bytes = 0;
    for (const entry of entries) {
      checkBytes(entry.bytes);
      if (!(entry.seq > previous && entry.seq < lowestHeld)) {
        throw new RangeError(`requeued entry ${String(entry.seq)} is out of order or not below the head (${String(lowestHeld)})`);
      }
      previous = entry.seq;
      bytes += entry.bytes;
    }
    const reason = options.allowOverLimit === true ? undefined : this.#refusal(entries.length, bytes);
    if (reason !== undefined) return { ok: false, reason };
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry !== undefined) this.#queued.pushFront(entry);
    }
    this.#bytes += bytes;
    return { ok: true };
  }

  // Merges sorted entries (already counted in #bytes) into the sorted queue.
  #mergeFront(sorted: readonly QueueEntry<T>[]): void {
    const head = this.#queued.peekFront();
    const last = sorted[sorted.length - 1];
    if (head === undefined || (last !== undefined && last.seq < head.seq)) {
      for (let i = sorted.length - 1; i >= 0; i--) {
        const entry = sorted[i];
        if (entry !== undefined) this.#queued.pushFront(entry);
      }
      return;
    }
    const queued = [...this.#queued];
    this.#queued.clear();
    let i = 0;
    let j = 0;
    while (i < sorted.length || j < queued.length) {
      const a = sorted[i];
      const b = queued[j];
      if (a !== undefined && (b === undefined || a.seq < b.seq)) {
        this.#queued.pushBack(a);
        i++;
      } else if (b !== undefined) {
        this.#queued.pushBack(b);
        j++;
      }
    }
  }

  /**
   * Removes the queued (not in-flight) entries matching `predicate`, e.g. expired messages, and
   * returns them in order.
   */
  removeWhere(predicate: (entry: QueueEntry<T>) => boolean): QueueEntry<T>[] {
    const removed = this.#queued.filter((entry) => !predicate(entry));
    for (const entry of removed) this.#bytes -= entry.bytes;
    return removed;
  }

  /**
   * Removes the oldest queued entry matching `predicate` (e.g. the oldest QoS 0 message, to make
   * room under a bound) and returns it.
   */
  evictFirst(predicate: (entry: QueueEntry<T>) => boolean): QueueEntry<T> | undefined {
    // Stops at the first match and moves only the shorter side: a victim near the head, the usual
    // case, costs O(1) instead of a pass over (and a rebuild of) the whole queue.
    for (let i = 0; i < this.#queued.length; i++) {
      const entry = this.#queued.at(i);
      if (entry === undefined || !predicate(entry)) continue;
      this.#queued.removeAt(i);
      this.#bytes -= entry.bytes;
      return entry;
    }
    return undefined;
  }

  /** Discards everything, queued and in flight, and moves to the next epoch. */
  clear(): Cleared<T> {
    const dropped = [...(this.#inflight?.values() ?? []), ...this.#queued].sort((a, b) => a.seq - b.seq);
    this.#inflight?.clear();
    this.#queued.clear();
    this.#bytes = 0;
    this.#epoch.advance(this.#epoch.current + 1);
    return { epoch: this.#epoch.current, dropped };
  }

  /** Queued entries, head first. */
  queued(): IterableIterator<QueueEntry<T>> {
    return this.#queued[Symbol.iterator]();
  }

  /** In-flight entries, in the order they were taken. */
  inflight(): IterableIterator<QueueEntry<T>> {
    return (this.#inflight ?? new Map<number, QueueEntry<T>>()).values();
  }
}
