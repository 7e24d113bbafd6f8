/**
 * The send order of a session's outbound group streams, kept in order as groups are added and
 * retired (never re-sorted), by moq-lite's rules: the subscriber's priority first (higher first),
 * then, within one subscription, its `ordered` flag: oldest group first when ordered, newest first
 * otherwise (live playback wants the newest). Subscriptions of one priority take turns.
 *
 * Groups only wait when the peer's stream limit is reached. Until then every group gets its stream
 * at once, in arrival (sequence) order, which is what a reader in sequence order expects; the
 * newest-first rule decides who gets the streams the peer frees while a backlog waits.
 * @module
 */

import { fieldFlag, FlagList } from "./flag-list.js";
import type { ReadyLevel, ReadyLinks } from "./ready-lanes.js";

/** What the scheduler needs to know of an outbound group stream. */
export interface Scheduled {
  /** Group sequence. */
  readonly sequence: number;
  /** In its lane's idle list: the flag is the list's membership (see {@link FlagList}). */
  idle: boolean;
}

/** The idle lists' membership flag. */
const IDLE = fieldFlag("idle");

/**
 * One subscription's group streams in sequence order: every live one (to pick what to drop) and
 * those still waiting for a stream (to pick what to open next). Groups nearly always arrive in
 * sequence order, so an insert is an append; a late lower group costs a binary search.
 */
export class Lane<T extends Scheduled> implements ReadyLinks<Lane<T>> {
  /** The subscription's priority (higher first); SUBSCRIBE_UPDATE may change it. */
  priority: number;
  /** Oldest first when true, newest first otherwise; SUBSCRIBE_UPDATE may change it. */
  ordered: boolean;
  /** Opened groups that wrote everything available and wait for the next frame. */
  readonly idle = new FlagList<T>(IDLE);
  /** @inheritdoc */
  readyLevel: ReadyLevel<Lane<T>> | undefined = undefined;
  /** @inheritdoc */
  readyPrev: Lane<T> | undefined = undefined;
  /** @inheritdoc */
  readyNext: Lane<T> | undefined = undefined;
  readonly #all: T[] = [];
  readonly #waiting: T[] = [];

  constructor(priority: number, ordered: boolean) {
    this.priority = priority;
    this.ordered = ordered;
  }

  /** Live groups (waiting or opened). */
  get size(): number {
    return this.#all.length;
  }

  /** Groups waiting for a stream. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Every live group, oldest first. */
  get items(): readonly T[] {
    return this.#all;
  }

  /** The oldest live group: the first to drop when the session is over its bound. */
  get oldest(): T | undefined {
    return this.#all[0];
  }

  /** Adds a new group, waiting for a stream. */
  add(item: T): void {
    insertSorted(this.#all, item);
    insertSorted(this.#waiting, item);
  }

  /**
   * The waiting group to open next: the oldest, unless streams are `contended` (a backlog waits
   * for the peer's limit) and the subscription is not ordered: then the newest.
   */
  next(contended: boolean): T | undefined {
    return this.ordered || !contended ? this.#waiting[0] : this.#waiting[this.#waiting.length - 1];
  }

  /** `item` got its stream: it no longer waits. */
  opened(item: T): void {
    removeSorted(this.#waiting, item);
  }

  /** Forgets `item` (done, dropped or abandoned). */
  remove(item: T): void {
    removeSorted(this.#all, item);
    removeSorted(this.#waiting, item);
    this.idle.delete(item);
  }
}

/**
 * The group to drop when a session is over its bound: the oldest group of the lowest priority
 * (lower-priority and older first, as moq-lite drops). Costs one look per subscription, not per
 * group.
 */
export function victim<T extends Scheduled>(lanes: Iterable<Lane<T>>): T | undefined {
  let worst: T | undefined;
  let worstPriority = 0;
  for (const lane of lanes) {
    const oldest = lane.oldest;
    if (oldest === undefined) continue;
    if (worst === undefined || lane.priority < worstPriority || (lane.priority === worstPriority && oldest.sequence < worst.sequence)) {
      worst = oldest;
      worstPriority = lane.priority;
    }
  }
  return worst;
}

/** Inserts after every item of a lower or equal sequence (equal ones keep arrival order). */
function insertSorted<T extends Scheduled>(items: T[], item: T): void {
  const last = items[items.length - 1];
  if (last === undefined || last.sequence <= item.sequence) {
    items.push(item);
    return;
  }
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = items[mid];
    if (at !== undefined && at.sequence <= item.sequence) lo = mid + 1;
    else hi = mid;
  }
  insertAt(items, lo, item);
}

// In place, without the array splice() returns: these run per group per subscriber.
function insertAt<T>(items: T[], at: number, item: T): void {
  items.push(item);
  items.copyWithin(at + 1, at, items.length - 1);
  items[at] = item;
}

function removeAt(items: unknown[], at: number): void {
  if (at === 0) items.shift();
  else {
    items.copyWithin(at, at + 1);
    items.pop();
  }
}

/** Removes `item` (found by binary search on its sequence); false when absent. */
function removeSorted<T extends Scheduled>(items: T[], item: T): boolean {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = items[mid];
    if (at !== undefined && at.sequence < item.sequence) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < items.length; i++) {
    const at = items[i];
    if (at?.sequence !== item.sequence) return false;
    if (at === item) {
      removeAt(items, i);
      return true;
    }
  }
  return false;
}
