/**
 * A cap on password checks running at once. scrypt runs on libuv's small thread pool, shared
 * with file and DNS work: a flood of CONNECTs (unknown users get a decoy check too) must queue
 * behind a few running checks instead of filling the pool and starving everything else.
 * @module
 */

/** Runs at most `limit` checks at once; the rest wait in arrival order. */
export class CheckLimiter {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  #head = 0;

  /** @param limit checks allowed to run at once (at least 1) */
  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Checks running now. */
  get running(): number {
    return this.#running;
  }

  /** Checks waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Runs `check` once a slot is free; resolves or rejects with it. */
  async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) {
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
      });
    } else {
      this.#running += 1;
    }
    try {
      return await check();
    } finally {
      this.#release();
    }
  }

  // Hands the slot straight to the next waiter (the count stays), or frees it.
  #release(): void {
    const next = this.#waiting[this.#head];
    if (next === undefined) {
      this.#running -= 1;
      return;
    }
    this.#head += 1;
    if (this.#head === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#head = 0;
    }
    next();
  }
}
