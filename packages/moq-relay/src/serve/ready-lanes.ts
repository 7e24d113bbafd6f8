/**
 * The lanes of a session that have groups waiting for a stream, by priority.
 * @module
 */

/** One priority's lanes, in turn order: a list linked through the lanes themselves. */
export interface ReadyLevel<L> {
  readonly priority: number;
  /** The lane whose turn is next. */
  head: L | undefined;
  tail: L | undefined;
}

/**
 * What {@link ReadyLanes} keeps on a lane: its level and its neighbours in the turn order. Links
 * on the lane, not sets and maps keyed by it: a lane becomes ready and idle again with every
 * group, and V8 re-makes a Set's or Map's table when a delete empties it, which was garbage per
 * group per subscriber that lived long enough to be promoted.
 */
export interface ReadyLinks<L> {
  /** Higher first. */
  readonly priority: number;
  /** The level the lane is held at; undefined while not ready. */
  readyLevel: ReadyLevel<L> | undefined;
  readyPrev: L | undefined;
  readyNext: L | undefined;
}

/**
 * The lanes that have groups waiting for a stream, by priority (highest first). Lanes of one
 * priority take turns, so one subscription's backlog cannot starve another's at the same level.
 * Adding a lane costs O(log levels), removing and rotating one O(1), with at most 256 levels (the
 * priority is a byte); `peek` steps over emptied levels, so it is O(levels) at worst and O(1)
 * with one priority in use.
 */
export class ReadyLanes<L extends ReadyLinks<L>> {
  /** Highest priority first. Emptied levels stay: lanes come back to them with every group. */
  readonly #levels: ReadyLevel<L>[] = [];
  #size = 0;

  /** Lanes held. */
  get size(): number {
    return this.#size;
  }

  /** Holds `lane` at its current priority (moves it if its priority changed). */
  add(lane: L): void {
    const current = lane.readyLevel;
    if (current?.priority === lane.priority) return;
    if (current !== undefined) this.delete(lane);
    append(this.#level(lane.priority), lane);
    this.#size += 1;
  }

  /** Stops holding `lane`. */
  delete(lane: L): void {
    if (lane.readyLevel === undefined) return;
    unlink(lane);
    this.#size -= 1;
  }

  /** Holds nothing. */
  clear(): void {
    for (const level of this.#levels) {
      for (let lane = level.head; lane !== undefined; lane = level.head) unlink(lane);
    }
    this.#levels.length = 0;
    this.#size = 0;
  }

  /** The lane whose turn it is: the first of the highest priority. */
  peek(): L | undefined {
    for (const level of this.#levels) if (level.head !== undefined) return level.head;
    return undefined;
  }

  /** `lane` had its turn: it goes to the back of its priority. */
  rotate(lane: L): void {
    const level = lane.readyLevel;
    if (level === undefined || level.tail === lane) return;
    unlink(lane);
    append(level, lane);
  }

  #level(priority: number): ReadyLevel<L> {
    const levels = this.#levels;
    let at = 0;
    let hi = levels.length;
    while (at < hi) {
      const mid = (at + hi) >>> 1;
      const level = levels[mid];
      if (level !== undefined && level.priority > priority) at = mid + 1;
      else hi = mid;
    }
    const found = levels[at];
    if (found?.priority === priority) return found;
    const level: ReadyLevel<L> = { priority, head: undefined, tail: undefined };
    // A new priority level is rare (one per priority byte in use); the splice is fine here.
    levels.splice(at, 0, level);
    return level;
  }
}

function append<L extends ReadyLinks<L>>(level: ReadyLevel<L>, lane: L): void {
  lane.readyLevel = level;
  lane.readyPrev = level.tail;
  lane.readyNext = undefined;
  if (level.tail === undefined) level.head = lane;
  else level.tail.readyNext = lane;
  level.tail = lane;
}

function unlink<L extends ReadyLinks<L>>(lane: L): void {
  const level = lane.readyLevel;
  if (level === undefined) return;
  const { readyPrev: prev, readyNext: next } = lane;
  if (prev === undefined) level.head = next;
  else prev.readyNext = next;
  if (next === undefined) level.tail = prev;
  else next.readyPrev = prev;
  lane.readyLevel = undefined;
  lane.readyPrev = undefined;
  lane.readyNext = undefined;
}
