/**
 * A set of wake-up callbacks. Sans-I/O readers are pulled; the app registers a callback that
 * schedules its next pull (resolves a promise, queues a microtask...).
 * @module
 */

/** Wake-up callbacks of one object. */
export class Watchers {
  readonly #listeners = new Set<() => void>();

  /** How many callbacks are registered. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Registers `listener`; returns its removal. */
  add(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Calls every callback once. */
  notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
