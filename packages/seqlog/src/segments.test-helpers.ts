/**
 * Test helpers for segment lists and cursors: a plain item, a bounded in-memory source and a
 * drain that records what a cursor yields. Not exported from the package.
 * @module
 */
import type { ArrivalEntry, CursorStep, SegmentCursor, SegmentSource } from "./segments.js";

/** A plain item: a payload and a lost flag. */
export class Item {
  lost = false;
  constructor(readonly seq: number) {}
}

/** A bounded in-memory source: an arrival log that forgets its oldest entries. */
export class Source implements SegmentSource<Item> {
  readonly #log: ArrivalEntry<Item>[] = [];
  #base = 0;
  closed = false;
  latest: number | undefined;
  constructor(readonly capacity = Infinity) {}
  get arrivalStart(): number {
    return this.#base;
  }
  get arrivalEnd(): number {
    return this.#base + this.#log.length;
  }
  arrival(index: number): ArrivalEntry<Item> | undefined {
    return this.#log[index - this.#base];
  }
  get(seq: number): Item | undefined {
    return this.#log.find((e) => e.seq === seq && !e.item.lost)?.item;
  }
  push(...seqs: number[]): this {
    for (const seq of seqs) {
      this.#log.push({ seq, item: new Item(seq) });
      if (this.latest === undefined || seq > this.latest) this.latest = seq;
      while (this.#log.length > this.capacity) {
        const old = this.#log.shift();
        if (old) old.item.lost = true;
        this.#base += 1;
      }
    }
    return this;
  }
  evict(seq: number): void {
    const entry = this.#log.find((e) => e.seq === seq);
    if (entry) entry.item.lost = true;
  }
}

export function drain(cursor: SegmentCursor<Source, Item>): string[] {
  const out: string[] = [];
  for (let step: CursorStep<Item> = cursor.next(); step.kind !== "none"; step = cursor.next()) {
    out.push(step.kind === "item" ? String(step.seq) : step.kind === "lost" ? `lost ${String(step.seq)}` : step.kind);
  }
  return out;
}
