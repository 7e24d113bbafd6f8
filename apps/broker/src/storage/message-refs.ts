/**
 * Message rows shared by reference: a message fanned out to many sessions (the router hands every
 * copy the same `Message` object) is stored once, and deleted when its last delivery, will or
 * retained topic lets go. Identity, not content, decides sharing: equal messages published twice
 * are two rows, which is correct and cheap to decide.
 * @module
 */
import type { Message } from "@handoff/mqtt-router";

/** Message ids by object identity, with reference counts. */
export class MessageRefs {
  readonly #ids = new WeakMap<Message, number>();
  readonly #counts = new Map<number, number>();
  #next: number;

  /** `nextId`: one above the highest id the file holds. */
  constructor(nextId: number) {
    this.#next = nextId;
  }

  /** How many message rows are live (stored or about to be). */
  get size(): number {
    return this.#counts.size;
  }

  /** Registers a loaded message under its stored id, with no references yet. */
  adopt(id: number, message: Message): void {
    this.#ids.set(message, id);
    this.#counts.set(id, 0);
    if (id >= this.#next) this.#next = id + 1;
  }

  /** Takes a reference to `message`; `isNew` says its row must be written. */
  acquire(message: Message): { readonly id: number; readonly isNew: boolean } {
    const known = this.#ids.get(message);
    const count = known === undefined ? undefined : this.#counts.get(known);
    if (known !== undefined && count !== undefined) {
      this.#counts.set(known, count + 1);
      return { id: known, isNew: false };
    }
    // Unknown, or its row was deleted since: a fresh id (ids are never reused).
    const id = this.#next++;
    this.#ids.set(message, id);
    this.#counts.set(id, 1);
    return { id, isNew: true };
  }

  /** Drops a reference; true when it was the last, and the row must go. */
  release(id: number): boolean {
    const count = this.#counts.get(id);
    if (count === undefined) return false;
    if (count > 1) {
      this.#counts.set(id, count - 1);
      return false;
    }
    this.#counts.delete(id);
    return true;
  }
}
