/**
 * A min-heap of deadlines (will delays, session expiries) checked on each clock tick. Entries are
 * never removed early: each carries a token the owner re-checks when it fires, so cancelling is
 * just changing the owner's state (lazy deletion).
 * @module
 */

/** One scheduled deadline. */
export interface Deadline<T> {
  readonly at: number;
  readonly value: T;
}

/** A min-heap by `at`. */
export class Deadlines<T> {
  readonly #heap: Deadline<T>[] = [];

  /** How many deadlines are scheduled (including ones whose owners no longer care). */
  get size(): number {
    return this.#heap.length;
  }

  /** Schedules `value` at `at`. */
  schedule(at: number, value: T): void {
    const heap = this.#heap;
    heap.push({ at, value });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      const c = heap[i];
      if (p === undefined || c === undefined || p.at <= c.at) break;
      heap[parent] = c;
      heap[i] = p;
      i = parent;
    }
  }

  /** Removes and returns every deadline due at or before `now`, earliest first. */
  due(now: number): T[] {
    const out: T[] = [];
    for (let top = this.#heap[0]; top !== undefined && top.at <= now; top = this.#heap[0]) {
      out.push(top.value);
      this.#pop();
    }
    return out;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      const at = (k: number): number => heap[k]?.at ?? Number.POSITIVE_INFINITY;
      if (at(l) < at(smallest)) smallest = l;
      if (at(r) < at(smallest)) smallest = r;
      if (smallest === i) return;
      const a = heap[i];
      const b = heap[smallest];
      if (a === undefined || b === undefined) return;
      heap[i] = b;
      heap[smallest] = a;
      i = smallest;
    }
  }
}
