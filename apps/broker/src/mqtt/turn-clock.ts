/**
 * The broker's wall clock, read once per event-loop turn. A flood's turn handles hundreds of
 * packets and each asks the time several times (keep alive, routing, flow control); one
 * `Date.now()` per turn serves them all, and every packet of a turn sees the same instant.
 *
 * The reading is dropped in the turn's check phase (`setImmediate`), so it is at most one turn
 * old: a message expiry or keep alive deadline computed from it is early by at most the turn's
 * own length, never by an idle wait.
 * @module
 */
import type { Clock } from "@handoff/seqlog";

/** `Date.now()`, cached for the rest of the current event-loop turn. */
export class TurnClock implements Clock {
  #now: number | undefined;
  readonly #read: () => number;
  readonly #forget = (): void => {
    this.#now = undefined;
  };

  /** `read` is the clock behind it (tests pass their own). */
  constructor(read: () => number = Date.now) {
    this.#read = read;
  }

  now(): number {
    let now = this.#now;
    if (now === undefined) {
      now = this.#read();
      this.#now = now;
      setImmediate(this.#forget);
    }
    return now;
  }
}
