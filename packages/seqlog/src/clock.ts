/**
 * The injected clock. Cores never read the time themselves: the app passes a real clock, tests
 * pass a {@link ManualClock} and decide when time moves.
 * @module
 */

/** A source of time in milliseconds. Monotonic clocks are preferred for timeouts. */
export interface Clock {
  /** The current time in milliseconds. */
  now(): number;
}

/** A clock that moves only when told to: the test chooses every instant. */
export class ManualClock implements Clock {
  #now: number;

  /** @param start the initial reading in milliseconds */
  constructor(start = 0) {
    this.#now = start;
  }

  /** The current reading. */
  now(): number {
    return this.#now;
  }

  /** Moves the clock forward by `ms` (must not be negative) and returns the new reading. */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError(`cannot move a clock backwards by ${String(ms)} ms`);
    this.#now += ms;
    return this.#now;
  }

  /** Sets the clock to `ms`, which must not be earlier than the current reading. */
  set(ms: number): void {
    if (!(ms >= this.#now)) throw new RangeError(`cannot move a clock back from ${String(this.#now)} to ${String(ms)}`);
    this.#now = ms;
  }
}
