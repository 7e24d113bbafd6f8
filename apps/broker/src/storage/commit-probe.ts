/**
 * A window into the commit worker for the crash tests, shared by both threads through one
 * SharedArrayBuffer (functions cannot cross to a worker, and a message would arrive too late to
 * stop a commit). The worker counts its transactions on it and halts at an armed commit boundary;
 * the main thread arms it and decides when each answer arrives.
 *
 * That makes runs repeatable. Left alone, an answer arrives whenever the worker's thread gets to
 * it, so which changes the next batch gathers, and how many commits a run makes, vary from run to
 * run. With a probe, the worker holds each answer until the main thread lets it go, a fixed number
 * of event-loop turns after the hand-over, and the main thread then blocks until it is posted: it
 * arrives at the same point of every run, so commit N of one run holds the same changes as commit
 * N of the next. The turns in between keep what production has: clients keep talking, and the
 * broker records changes and waits on flushes while the batch is in flight.
 *
 * The main thread also learns of a halt only at that point (never from a race with the worker), so
 * what it does before the process dies is the same in every run too.
 * @module
 */

/** Where in a transaction the worker halts: before its COMMIT, or after it (before the reply). */
export type HaltPoint = "before" | "after";

/** Event-loop turns from the hand-over of a batch to the arrival of the worker's answer. */
const TURNS_IN_FLIGHT = 3;

/**
 * How long the main thread waits for an answer it let go: a safety net against a worker that died
 * without answering, far beyond any commit on a loaded machine.
 */
const ANSWER_LIMIT_MS = 120_000;

// Int32 cells of the buffer.
const BEGUN = 0; // transactions the worker began
const ANSWERED = 1; // answers the worker posted
const LET_GO = 2; // answers the main thread let go
const HALT_AT = 3; // the transaction (by BEGUN's count) to halt in; 0: none
const HALT_AFTER = 4; // 1: halt after its COMMIT, 0: before
const HALTED = 5; // 1 once the worker halted
const RELEASED = 6; // 1 once the main thread lets a halted worker end
const CHANGED = 7; // bumped by the worker on every change of the cells it writes, for Atomics.wait
const CELLS = 8;

/** See the module comment. Create it on the main thread; the worker attaches to its {@link buffer}. */
export class CommitProbe {
  /** The memory both threads share; pass it to the worker. */
  readonly buffer: SharedArrayBuffer;
  readonly #cells: Int32Array;
  /** Main thread: batches handed over. */
  #handed = 0;
  /** Main thread: the halt, once this thread saw it. */
  #haltSeen = false;

  /** A new probe, or (on the worker) the probe whose `buffer` this is. */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT)) {
    this.buffer = buffer;
    this.#cells = new Int32Array(buffer);
  }

  // --- main thread ----------------------------------------------------------------------------

  /** Halts the worker in the `commit`th transaction it begins from now on, at `when`. */
  arm(commit: number, when: HaltPoint): void {
    Atomics.store(this.#cells, HALT_AFTER, when === "after" ? 1 : 0);
    Atomics.store(this.#cells, HALT_AT, Atomics.load(this.#cells, BEGUN) + commit);
  }

  /** True once the worker halted at the armed boundary, as far as the main thread knows yet. */
  get halted(): boolean {
    return this.#haltSeen;
  }

  /** Lets a halted worker end without committing (it closes its connection and exits). */
  release(): void {
    Atomics.store(this.#cells, RELEASED, 1);
    Atomics.notify(this.#cells, RELEASED);
  }

  /** Called by the main thread right after it posted a batch: schedules the answer's arrival. */
  handedOver(): void {
    const handed = ++this.#handed;
    let turns = TURNS_IN_FLIGHT;
    const arrive = (): void => {
      if (--turns > 0) {
        setImmediate(arrive);
        return;
      }
      Atomics.store(this.#cells, LET_GO, handed);
      Atomics.notify(this.#cells, LET_GO);
      // Blocks until the answer is posted (it is then delivered on the next turn), or the worker halted.
      this.#waitFor(() => Atomics.load(this.#cells, ANSWERED) >= handed || Atomics.load(this.#cells, HALTED) === 1);
      this.#haltSeen = Atomics.load(this.#cells, HALTED) === 1;
    };
    setImmediate(arrive);
  }

  #waitFor(done: () => boolean): void {
    const deadline = performance.now() + ANSWER_LIMIT_MS;
    for (;;) {
      const seen = Atomics.load(this.#cells, CHANGED);
      if (done()) return;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`the commit worker posted no answer for ${String(ANSWER_LIMIT_MS)} ms`);
      Atomics.wait(this.#cells, CHANGED, seen, left);
    }
  }

  // --- worker thread --------------------------------------------------------------------------

  /** Called by the worker as it begins a transaction; returns the transaction's number (from 1). */
  began(): number {
    return Atomics.add(this.#cells, BEGUN, 1) + 1;
  }

  /** True if transaction `n` is armed to halt at `when`. */
  haltsAt(n: number, when: HaltPoint): boolean {
    return Atomics.load(this.#cells, HALT_AT) === n && Atomics.load(this.#cells, HALT_AFTER) === (when === "after" ? 1 : 0);
  }

  /** The worker halts: it says so, then blocks until {@link release}. */
  halt(): void {
    Atomics.store(this.#cells, HALTED, 1);
    this.#changed();
    while (Atomics.load(this.#cells, RELEASED) === 0) Atomics.wait(this.#cells, RELEASED, 0);
  }

  /** The worker answers a batch: waits until the main thread lets the answer go, then posts it. */
  answer(post: () => void): void {
    const next = Atomics.load(this.#cells, ANSWERED) + 1;
    while (Atomics.load(this.#cells, LET_GO) < next) Atomics.wait(this.#cells, LET_GO, next - 1);
    post();
    Atomics.store(this.#cells, ANSWERED, next);
    this.#changed();
  }

  #changed(): void {
    Atomics.add(this.#cells, CHANGED, 1);
    Atomics.notify(this.#cells, CHANGED);
  }
}
