/**
 * A bounded group cache: groups by sequence number plus their arrival log. Bounded by count and by
 * age (against an injected clock); eviction is oldest-arrival first and aborts the group
 * (`evicted`), which wakes its readers with an explicit loss. The log keeps a bounded tail of
 * evicted entries so a lagging cursor still learns which groups it lost. It keeps the payload
 * bytes its groups hold, so an owner can bound it in bytes too ({@link GroupCache.evictOldest}).
 * @module
 */
import type { ArrivalEntry } from "@handoff/seqlog";
import type { Group } from "./group.js";

/** Bounds of a {@link GroupCache}. */
export interface CacheLimits {
  /** Most groups held at once (default 64). */
  readonly maxGroups?: number;
  /** Oldest group age in ms before it is evicted (default: unbounded). */
  readonly maxAgeMs?: number;
}

/** The groups of one track copy. */
export class GroupCache {
  /** Most groups kept (at least 1; default 64); older ones are evicted first. */
  readonly maxGroups: number;
  /** Oldest group age (ms) kept; `Infinity` when unbounded. */
  readonly maxAgeMs: number;
  readonly #groups = new Map<number, Group>();
  #log: ArrivalEntry<Group>[] = [];
  #base = 0;
  #live = 0;
  #bytes = 0;
  readonly #maxTombstones: number;

  constructor(limits: CacheLimits = {}) {
    this.maxGroups = Math.max(1, limits.maxGroups ?? 64);
    this.maxAgeMs = limits.maxAgeMs ?? Infinity;
    this.#maxTombstones = Math.max(this.maxGroups, 64);
  }

  /** The lowest arrival index still in the log. */
  get arrivalStart(): number {
    return this.#base;
  }

  /** One past the newest arrival index. */
  get arrivalEnd(): number {
    return this.#base + this.#log.length;
  }

  /** Payload bytes the held groups hold (kept up to date by {@link account}). */
  get bytes(): number {
    return this.#bytes;
  }

  /** A held group's payload grew or was dropped by `delta` bytes (groups call it). */
  account(delta: number): void {
    this.#bytes += delta;
  }

  /** How many groups are held (not evicted). */
  get size(): number {
    return this.#groups.size;
  }

  /** The log entry at an absolute arrival index. */
  arrival(index: number): ArrivalEntry<Group> | undefined {
    return this.#log[index - this.#base];
  }

  /** The held group with this sequence number. */
  get(sequence: number): Group | undefined {
    return this.#groups.get(sequence);
  }

  /** The held groups, in arrival order. */
  *groups(): IterableIterator<Group> {
    for (let i = this.#live; i < this.arrivalEnd; i++) {
      const entry = this.arrival(i);
      if (entry !== undefined && this.#groups.get(entry.seq) === entry.item) yield entry.item;
    }
  }

  /** Adds a group, evicting the oldest arrivals beyond the count bound. */
  insert(group: Group): void {
    this.#groups.set(group.sequence, group);
    this.#log.push({ seq: group.sequence, item: group });
    while (this.arrivalEnd - this.#live > this.maxGroups) this.#evictOldest();
    this.#trim();
  }

  /** Evicts every group older than the age bound at `now`; returns how many. */
  expire(now: number): number {
    let evicted = 0;
    while (this.#live < this.arrivalEnd) {
      const entry = this.arrival(this.#live);
      if (entry !== undefined && entry.item.createdAt + this.maxAgeMs > now) break;
      this.#evictOldest();
      evicted += 1;
    }
    this.#trim();
    return evicted;
  }

  /** Evicts the oldest held group, if any, and returns it (its readers are told it is lost). */
  evictOldest(): Group | undefined {
    while (this.#live < this.arrivalEnd) {
      const entry = this.arrival(this.#live);
      const held = entry !== undefined && this.#groups.get(entry.seq) === entry.item && !entry.item.lost;
      this.#evictOldest();
      if (held) {
        this.#trim();
        return entry.item;
      }
    }
    this.#trim();
    return undefined;
  }

  /**
   * Evicts group `sequence` if held, and returns it (its readers are told it is lost). Its log
   * entry stays, as an evicted one, until the oldest arrivals pass it, and counts toward
   * `maxGroups` until then (meant for a copy no longer fed, where nothing arrives any more).
   */
  evict(sequence: number): Group | undefined {
    const group = this.#groups.get(sequence);
    if (group === undefined) return undefined;
    this.#groups.delete(sequence);
    group.evict();
    return group;
  }

  /** Evicts every group (the copy is being dropped). */
  clear(): void {
    while (this.#live < this.arrivalEnd) this.#evictOldest();
    this.#trim();
  }

  #evictOldest(): void {
    const entry = this.arrival(this.#live);
    this.#live += 1;
    if (entry === undefined) return;
    if (this.#groups.get(entry.seq) === entry.item) this.#groups.delete(entry.seq);
    entry.item.evict();
  }

  #trim(): void {
    const excess = this.#live - this.#base - this.#maxTombstones;
    if (excess <= 0) return;
    // Trim in batches so the log is not shifted once per group.
    const cut = Math.max(excess, this.#maxTombstones >> 1);
    const n = Math.min(cut, this.#live - this.#base);
    this.#log = this.#log.slice(n);
    this.#base += n;
  }
}
