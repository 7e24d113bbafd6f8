import type { TrackInfo } from "@handoff/moq-resume";

/**
 * What a TRACK_INFO query came to: the publisher's info, or a failure with the code to answer
 * (undefined: no route left to ask). `gone` marks a failure of the route itself (its session
 * ended before answering), after which another route may still be asked.
 */
export type TrackInfoResult =
  | { readonly ok: true; readonly info: TrackInfo }
  | { readonly ok: false; readonly code: number | undefined; readonly gone?: boolean };

/** Receives the result of a query. */
export type TrackInfoAnswer = (result: TrackInfoResult) => void;

/**
 * The info of a track whose publisher advertises none (lite-01..04 have no TRACK stream): the
 * reference's default retention window of 5 s rather than 0 ms, which today's clients read as
 * "evict every group as soon as it closes", and milliseconds.
 */
export const UNADVERTISED_TRACK_INFO: TrackInfo = { priority: 0, ordered: false, maxLatencyMs: 5000, timescale: 1000 };

/** Default bound on the cached infos (a track's info is small; the bound stops a name flood). */
export const MAX_CACHED_TRACK_INFOS = 4096;

interface Pending {
  readonly waiters: Set<TrackInfoAnswer>;
}

/**
 * The publishers' track infos the relay learnt (TRACK_INFO is immutable per track), and the
 * queries still in flight: later readers are answered from the cache, and concurrent ones share
 * one upstream query. Bounded: the oldest entry goes first past the bound.
 */
export class TrackInfos {
  readonly #known = new Map<string, TrackInfo>();
  readonly #pending = new Map<string, Pending>();
  readonly #max: number;

  constructor(max = MAX_CACHED_TRACK_INFOS) {
    this.#max = Math.max(1, max);
  }

  /** How many infos are cached. */
  get size(): number {
    return this.#known.size;
  }

  /** The cached info of `track` of `path`, if known. */
  get(path: string, track: string): TrackInfo | undefined {
    return this.#known.get(infoKey(path, track));
  }

  /**
   * Adds `answer` to the query for `track` of `path`; `start` runs when no query is in flight
   * (it must eventually {@link settle} it). Returns the waiter's removal.
   */
  wait(path: string, track: string, answer: TrackInfoAnswer, start: () => void): () => void {
    const key = infoKey(path, track);
    let pending = this.#pending.get(key);
    const fresh = pending === undefined;
    if (pending === undefined) {
      pending = { waiters: new Set() };
      this.#pending.set(key, pending);
    }
    pending.waiters.add(answer);
    const waiters = pending.waiters;
    if (fresh) start();
    return () => {
      waiters.delete(answer);
    };
  }

  /** Ends the query for `track` of `path`: a success is cached, and every waiter is told. */
  settle(path: string, track: string, result: TrackInfoResult): void {
    const key = infoKey(path, track);
    if (result.ok) {
      this.#known.delete(key);
      this.#known.set(key, result.info);
      for (const oldest of this.#known.keys()) {
        if (this.#known.size <= this.#max) break;
        this.#known.delete(oldest);
      }
    }
    const pending = this.#pending.get(key);
    this.#pending.delete(key);
    if (pending !== undefined) for (const answer of [...pending.waiters]) answer(result);
  }

  /** Forgets the infos of every track of `path` (its publisher left: a new one may differ). */
  forget(path: string): void {
    const prefix = infoKey(path, "");
    for (const key of [...this.#known.keys()]) if (key.startsWith(prefix)) this.#known.delete(key);
  }
}

function infoKey(path: string, track: string): string {
  return `${path}\u0000${track}`;
}
