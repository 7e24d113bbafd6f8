/**
 * Message rows shared by reference: a message fanned out to many sessions (the router hands every
 * copy the same `Message` object) is stored once, and deleted when its last delivery, will or
 * retained topic lets go. Identity, not content, decides sharing: equal messages published twice
 * are two rows, which is correct and cheap to decide.
 * @module
 */
import type { Message } from "@handoff/mqtt-router";

interface Entry {
  readonly id: number;
  readonly message: Message;
  count: number;
}

/**
 * Message ids by object identity, with reference counts. Plain maps, not a WeakMap by message: an
 * entry goes with its last reference, and a flood of short-lived messages through a WeakMap costs
 * the garbage collector an ephemeron per message.
 */
export class MessageRefs {
  readonly #byMessage = new Map<Message, Entry>();
  readonly #byId = new Map<number, Entry>();
  #next: number;

  /** `nextId`: one above the highest id the file holds. */
  constructor(nextId: number) {
    this.#next = nextId;
  }

  /** How many message rows are live (stored or about to be). */
  get size(): number {
    return this.#byId.size;
  }

  /** Registers a loaded message under its stored id, with no references yet. */
  adopt(id: number, message: Message): void {
    this.#add(id, message, 0);
    if (id >= this.#next) this.#next = id + 1;
  }

  /** Takes a reference to `message`; `isNew` says its row must be written. */
  acquire(message: Message): { readonly id: number; readonly isNew: boolean } {
    const known = this.#byMessage.get(message);
    if (known !== undefined) {
      known.count += 1;
      return { id: known.id, isNew: false };
    }
    // Unknown, or its row was deleted since: a fresh id (ids are never reused).
    const id = this.#next++;
    this.#add(id, message, 1);
    return { id, isNew: true };
  }

  /** Drops a reference; true when it was the last, and the row must go. */
  release(id: number): boolean {
    const entry = this.#byId.get(id);
    if (entry === undefined) return false;
    if (entry.count > 1) {
      entry.count -= 1;
      return false;
    }
    this.#byId.delete(id);
    this.#byMessage.delete(entry.message);
    return true;
  }

  #add(id: number, message: Message, count: number): void {
    const entry: Entry = { id, message, count };
    this.#byMessage.set(message, entry);
    this.#byId.set(id, entry);
  }
}
