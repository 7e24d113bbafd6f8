/**
 * A double-ended queue on a growable ring buffer: O(1) push and pop at both ends, which a plain
 * array's `shift`/`unshift` are not.
 * @module
 */

/** A double-ended queue. Items cannot be `undefined`: that marks an empty slot. */
export class Deque<T extends object | string | number | boolean | bigint | symbol | null> {
  #buf: (T | undefined)[];
  #head = 0;
  #length = 0;

  /** @param capacity initial slots (grows by doubling) */
  constructor(capacity = 16) {
    this.#buf = new Array<T | undefined>(Math.max(4, capacity));
  }

  /** How many items the deque holds. */
  get length(): number {
    return this.#length;
  }

  #grow(): void {
    const old = this.#buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#length; i++) next[i] = old[(this.#head + i) % old.length];
    this.#buf = next;
    this.#head = 0;
  }

  /** Appends at the back. */
  pushBack(item: T): void {
    if (this.#length === this.#buf.length) this.#grow();
    this.#buf[(this.#head + this.#length) % this.#buf.length] = item;
    this.#length += 1;
  }

  /** Prepends at the front. */
  pushFront(item: T): void {
    if (this.#length === this.#buf.length) this.#grow();
    this.#head = (this.#head - 1 + this.#buf.length) % this.#buf.length;
    this.#buf[this.#head] = item;
    this.#length += 1;
  }

  /** Removes and returns the front item. */
  popFront(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#buf[this.#head];
    this.#buf[this.#head] = undefined; // release the reference for the GC
    this.#head = (this.#head + 1) % this.#buf.length;
    this.#length -= 1;
    return item;
  }

  /** Removes and returns the back item. */
  popBack(): T | undefined {
    if (this.#length === 0) return undefined;
    const index = (this.#head + this.#length - 1) % this.#buf.length;
    const item = this.#buf[index];
    this.#buf[index] = undefined;
    this.#length -= 1;
    return item;
  }

  /** The item at position `index` from the front, without removing it. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    return this.#buf[(this.#head + index) % this.#buf.length];
  }

  /**
   * Removes and returns the item at `index` from the front, moving whichever side of it is
   * shorter: O(min(index, length - index)), so removing near either end is cheap.
   */
  removeAt(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    const size = this.#buf.length;
    const slot = (i: number): number => (this.#head + i) % size;
    const item = this.#buf[slot(index)];
    if (index < this.#length - 1 - index) {
      for (let i = index; i > 0; i--) this.#buf[slot(i)] = this.#buf[slot(i - 1)];
      this.#buf[this.#head] = undefined;
      this.#head = (this.#head + 1) % size;
    } else {
      for (let i = index; i < this.#length - 1; i++) this.#buf[slot(i)] = this.#buf[slot(i + 1)];
      this.#buf[slot(this.#length - 1)] = undefined;
    }
    this.#length -= 1;
    return item;
  }

  /** The front item. */
  peekFront(): T | undefined {
    return this.at(0);
  }

  /** The back item. */
  peekBack(): T | undefined {
    return this.at(this.#length - 1);
  }

  /** Removes every item. */
  clear(): void {
    this.#buf = new Array<T | undefined>(this.#buf.length);
    this.#head = 0;
    this.#length = 0;
  }

  /** Keeps the items for which `keep` returns true, in order; returns the removed ones. */
  filter(keep: (item: T) => boolean): T[] {
    const removed: T[] = [];
    const kept: T[] = [];
    for (const item of this) (keep(item) ? kept : removed).push(item);
    if (removed.length === 0) return removed;
    this.clear();
    for (const item of kept) this.pushBack(item);
    return removed;
  }

  /** Front to back. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.#length; i++) {
      const item = this.#buf[(this.#head + i) % this.#buf.length];
      if (item !== undefined) yield item;
    }
  }
}
