/**
 * Generations (epochs): fence tokens allocated in increasing order.
 *
 * Whatever was built under one generation (a delivery plan, a cursor, a handler) carries it; once
 * the owner moves to a newer generation, the holder of the old one is refused. A restarted process
 * must never hand out a generation an earlier run already used (it may be persisted next to state
 * that a stale writer could otherwise overwrite), so the allocator is seeded from two sources: the
 * highest persisted generation, and the wall clock scaled so that a fresh process starts above
 * anything an earlier one could have reached at its normal allocation rate.
 * @module
 */
import { MAX_SEQ } from "./seq.js";

/**
 * Generations reserved per millisecond of wall-clock time in the seed. An earlier run that
 * allocated faster than this, for longer than it ran, could reach the seed of the next run; the
 * persisted floor covers that case. 2^10 keeps the seed below 2^53 until the year 2248.
 */
export const GENERATIONS_PER_MS = 1024;

/** Thrown when the allocator would pass 2^53 - 1, where numbers stop being exact. */
export class GenerationExhaustedError extends RangeError {
  /** Set so logs and `err.name` checks name the class. */
  override readonly name = "GenerationExhaustedError";
  constructor() {
    super("generation allocator exhausted (2^53 - 1 reached)");
  }
}

/** What the allocator is seeded from. Both are optional; the larger bound wins. */
export interface GenerationSeed {
  /** The highest generation known to have been used (e.g. read back from storage). */
  readonly persisted?: number;
  /** The wall-clock time in milliseconds since the epoch, read by the app at startup. */
  readonly wallClockMs?: number;
}

/**
 * Hands out strictly increasing generations. Sans-I/O: the caller reads the wall clock and
 * storage and passes them in.
 */
export class GenerationAllocator {
  #next: number;

  constructor(seed: GenerationSeed = {}) {
    const fromStore = seed.persisted === undefined ? 1 : seed.persisted + 1;
    const fromClock = seed.wallClockMs === undefined ? 1 : Math.floor(seed.wallClockMs) * GENERATIONS_PER_MS;
    const start = Math.max(fromStore, fromClock, 1);
    if (!Number.isSafeInteger(start)) throw new GenerationExhaustedError();
    this.#next = start;
  }

  /** The generation {@link GenerationAllocator.allocate} returns next. */
  get peek(): number {
    return this.#next;
  }

  /** Takes a new generation, greater than every one returned before. */
  allocate(): number {
    const value = this.#next;
    if (value > MAX_SEQ) throw new GenerationExhaustedError();
    this.#next = value + 1;
    return value;
  }

  /** Makes sure no generation up to and including `seen` is handed out again (e.g. learnt from a peer). */
  observe(seen: number): void {
    if (Number.isSafeInteger(seen) && seen >= this.#next) this.#next = seen + 1;
  }
}

/**
 * The current generation of one owned thing (a session, a track, a queue). Advancing it refuses
 * every holder of an older one.
 */
export class Fence {
  #current: number;

  /** @param initial the generation the fence starts at */
  constructor(initial: number) {
    this.#current = initial;
  }

  /** The current generation. */
  get current(): number {
    return this.#current;
  }

  /**
   * Moves the fence to `generation`, which must be greater than the current one (fences never go
   * back: a stale owner must never become current again).
   */
  advance(generation: number): void {
    if (!(generation > this.#current)) {
      throw new RangeError(`fence can only move forward (from ${String(this.#current)} to ${String(generation)})`);
    }
    this.#current = generation;
  }

  /** True when `generation` is the current one. */
  admits(generation: number): boolean {
    return generation === this.#current;
  }
}
