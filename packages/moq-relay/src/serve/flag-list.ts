/**
 * A work list whose membership is a flag on the item, for the per-frame lists of a session's
 * scheduling (groups to pump, groups waiting for a frame).
 *
 * Why not a `Set`: V8 re-makes a Set's table when a delete leaves it under half full, so a set
 * that empties and refills with every frame allocates a table each time; the long-lived set keeps
 * it past young-generation collections, and at 100 subscribers those tables were the relay's
 * largest source of promoted garbage (so of full collections, so of its latency tail).
 * @module
 */

/** Reads and writes the membership flag of one list on an item. */
export interface ListFlag<T> {
  /** Whether `item` is in the list. */
  get(item: T): boolean;
  /** Marks `item` in (true) or out (false). */
  set(item: T, member: boolean): void;
}

/** The flag kept in the boolean field `key` of the items. */
export function fieldFlag<K extends string>(key: K): ListFlag<Record<K, boolean>> {
  return {
    get: (item) => item[key],
    set: (item, member) => {
      item[key] = member;
    },
  };
}

/**
 * Distinct items in the order they were added. {@link delete} only clears the flag; the slot is
 * skipped when the list is taken from, so every operation is O(1) and a list of a few items
 * allocates nothing.
 */
export class FlagList<T> {
  readonly #flag: ListFlag<T>;
  /**
   * Slots `[#next, #end)` hold the list; taken slots are cleared, and an emptied list starts
   * again at slot 0. The array never shrinks (V8 re-allocates a trimmed array's store on the next
   * push), so it stays at the list's working size.
   */
  readonly #items: (T | undefined)[] = [];
  #next = 0;
  #end = 0;

  constructor(flag: ListFlag<T>) {
    this.#flag = flag;
  }

  /** Adds `item` unless it is in the list already. */
  add(item: T): void {
    if (this.#flag.get(item)) return;
    this.#flag.set(item, true);
    if (this.#end < this.#items.length) this.#items[this.#end] = item;
    else this.#items.push(item);
    this.#end += 1;
  }

  /** Takes `item` out of the list. */
  delete(item: T): void {
    this.#flag.set(item, false);
  }

  /** Removes and returns the oldest item; an item added while taking is taken too. */
  take(): T | undefined {
    const items = this.#items;
    while (this.#next < this.#end) {
      const item = items[this.#next];
      items[this.#next] = undefined;
      this.#next += 1;
      if (item === undefined || !this.#flag.get(item)) continue;
      this.#flag.set(item, false);
      return item;
    }
    this.#next = 0;
    this.#end = 0;
    return undefined;
  }

  /** Empties the list. */
  clear(): void {
    for (let item = this.take(); item !== undefined; item = this.take()) continue;
  }
}
