/**
 * Flow control between publishers and the online subscribers they feed (docs/INVARIANTS.md, router
 * invariant 8). When a publish leaves a subscriber's queue congested (the router's high-water
 * mark), its publisher's session waits on a {@link Hold} — it routes nothing more and its
 * acknowledgements wait — until every congested subscriber is back at the low-water mark.
 *
 * A subscriber holding publishers back for longer than the stall budget without draining is
 * *stalled*: the host disconnects it, its session goes offline, and the offline bounds and
 * overflow policy apply to its queue. One stuck subscriber therefore delays its publishers (and
 * through them the other subscribers they feed) by at most the budget. Sans-I/O: time is the `now`
 * each call is given, and the host runs the stall check from its own timer.
 * @module
 */
import type { Hold } from "./host.js";

interface Waiter {
  readonly waitingFor: Set<string>;
  readonly resolve: () => void;
}

interface Congestion {
  readonly waiters: Set<Waiter>;
  /** Clock ms when this subscriber first held a publisher back, this episode. */
  readonly since: number;
}

/**
 * The registry of holds, by congested subscriber: what a host answers
 * `ClientSessionHost.hold`, `deliveryProgressed` and `released` from, one for all its connections.
 * A key need not be a session: any string the `backlogged` check knows (a cluster's stream, say)
 * can hold publishers the same way.
 */
export class FlowControl {
  readonly #backlogged: (clientId: string) => boolean;
  readonly #stallMs: number;
  readonly #congested = new Map<string, Congestion>();

  /**
   * @param backlogged the router's view: is this subscriber still above its low-water mark?
   * @param stallMs how long a subscriber may hold publishers back without draining
   */
  constructor(backlogged: (clientId: string) => boolean, stallMs: number) {
    this.#backlogged = backlogged;
    this.#stallMs = stallMs;
  }

  /** Subscribers holding at least one publisher back now. */
  get congestedCount(): number {
    return this.#congested.size;
  }

  /**
   * A hold on the subscribers in `congested` that are still backlogged, or undefined when none is
   * (nothing to wait for).
   */
  hold(congested: readonly string[], now: number): Hold | undefined {
    const waitingFor = new Set(congested.filter((id) => this.#backlogged(id)));
    if (waitingFor.size === 0) return undefined;
    let resolve: () => void = () => undefined;
    const released = new Promise<void>((r) => {
      resolve = r;
    });
    const waiter: Waiter = { waitingFor, resolve };
    for (const id of waitingFor) {
      let entry = this.#congested.get(id);
      if (entry === undefined) {
        entry = { waiters: new Set(), since: now };
        this.#congested.set(id, entry);
      }
      entry.waiters.add(waiter);
    }
    return {
      released,
      cancel: () => {
        for (const id of waiter.waitingFor) {
          const entry = this.#congested.get(id);
          entry?.waiters.delete(waiter);
          if (entry?.waiters.size === 0) this.#congested.delete(id);
        }
        waiter.waitingFor.clear();
        resolve();
      },
    };
  }

  /** `clientId` acknowledged a delivery: releases its waiters once it is back at the low-water mark. */
  progressed(clientId: string): void {
    if (!this.#congested.has(clientId) || this.#backlogged(clientId)) return;
    this.release(clientId);
  }

  /** `clientId` no longer holds anyone back (drained, disconnected, taken over). */
  release(clientId: string): void {
    const entry = this.#congested.get(clientId);
    if (entry === undefined) return;
    this.#congested.delete(clientId);
    for (const waiter of entry.waiters) {
      waiter.waitingFor.delete(clientId);
      if (waiter.waitingFor.size === 0) waiter.resolve();
    }
  }

  /**
   * Subscribers that have held publishers back for longer than the stall budget at `now`. Also
   * releases the waiters of any subscriber no longer backlogged (its session was replaced or
   * emptied without an acknowledgement to report it).
   */
  stalled(now: number): string[] {
    const out: string[] = [];
    for (const [id, entry] of [...this.#congested]) {
      if (!this.#backlogged(id)) this.release(id);
      else if (now - entry.since >= this.#stallMs) out.push(id);
    }
    return out;
  }
}
