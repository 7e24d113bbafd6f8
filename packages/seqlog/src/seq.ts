/**
 * Sequence numbers: non-negative safe integers, assigned in increasing order.
 *
 * JavaScript numbers are exact only up to 2^53 - 1; a sequence number beyond that would silently
 * compare equal to its neighbour, which is exactly the kind of corruption a handoff must not have.
 * Everything here refuses such values instead.
 * @module
 */

/** The largest sequence number that can be represented exactly. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** Thrown when a value cannot be used as a sequence number, or a counter would pass {@link MAX_SEQ}. */
export class SeqRangeError extends RangeError {
  /** Set so logs and `err.name` checks name the class. */
  override readonly name = "SeqRangeError";
  /** The offending value. */
  readonly value: number;
  constructor(value: number, what = "sequence number") {
    super(`${what} out of range: ${String(value)} (must be an integer in 0..2^53-1)`);
    this.value = value;
  }
}

/** True when `value` is a usable sequence number: an integer in `0..MAX_SEQ`. */
export function isSeq(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * Returns `value` if it is a usable sequence number and throws {@link SeqRangeError} otherwise.
 * @param what names the value in the error message
 */
export function checkSeq(value: number, what?: string): number {
  if (!isSeq(value)) throw new SeqRangeError(value, what);
  return value;
}

/**
 * Assigns increasing sequence numbers, starting from a given value (e.g. one past the highest
 * persisted number after a restart).
 */
export class SeqCounter {
  #next: number;

  /** @param start the first number {@link SeqCounter.next} returns */
  constructor(start = 0) {
    this.#next = checkSeq(start, "counter start");
  }

  /** The number the next call to {@link SeqCounter.next} returns, without taking it. */
  get peek(): number {
    return this.#next;
  }

  /** Takes the next number. Throws {@link SeqRangeError} once the counter would pass {@link MAX_SEQ}. */
  next(): number {
    const value = this.#next;
    if (value > MAX_SEQ) throw new SeqRangeError(value, "sequence counter");
    this.#next = value + 1;
    return value;
  }

  /**
   * Moves the counter forward so the next number is at least `floor` (never backwards). Used when a
   * number was learnt from elsewhere (storage, a peer) and must not be reissued.
   */
  advanceTo(floor: number): void {
    checkSeq(floor, "counter floor");
    if (floor > this.#next) this.#next = floor;
  }
}
