/**
 * Work deferred to the end of this turn of the event loop, for every session of the process at
 * once: one scheduled callback (one `setImmediate`) runs all that was deferred during the turn,
 * in order, instead of one callback per session. A fan-out turn dirties every subscriber's
 * session; each used to cost its own immediate.
 */
export class TurnBatch {
  #queue: (() => void)[] = [];
  #scheduled = false;
  readonly #schedule: (run: () => void) => void;

  /** @param schedule runs its argument once, later in this turn (`setImmediate` in the relay) */
  constructor(schedule: (run: () => void) => void) {
    this.#schedule = schedule;
  }

  /** Callbacks waiting for the batch's run. */
  get size(): number {
    return this.#queue.length;
  }

  /** Runs `fn` in this turn's batch; what is deferred while the batch runs goes to the next one. */
  defer(fn: () => void): void {
    this.#queue.push(fn);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => {
      this.#run();
    });
  }

  #run(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    let failure: { readonly error: unknown } | undefined;
    for (const fn of queue) {
      // One session's failure must not cost the others their turn: the first error is thrown
      // once the batch has run, as it escaped its own callback before.
      try {
        fn();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }
}
