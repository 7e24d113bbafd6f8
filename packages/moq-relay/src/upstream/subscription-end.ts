import { RangeSet } from "@handoff/seqlog";

/**
 * How long an upstream subscription whose publisher FINed it waits for groups below its
 * SUBSCRIBE_END that never came (a publisher that skipped numbers without reporting them), in ms.
 */
export const END_GRACE_MS = 5000;

/**
 * What an upstream subscription still owes once its publisher declared the end (lite-05+
 * SUBSCRIBE_END, exclusive, then FIN): the groups from SUBSCRIBE_START up to the end that have
 * neither completed (FIN or reset) nor been reported (SUBSCRIBE_DROP). Group streams are
 * independent of the subscribe stream, so some may still be arriving after its FIN. The track
 * is finished only once nothing is owed; groups at or past the end are refused.
 */
export class SubscriptionEnd {
  #start: number | undefined;
  #end: number | undefined;
  readonly #settled = new RangeSet();
  #fin = false;
  /** When the FIN was first seen by a tick (undefined before). */
  #waitingSince: number | undefined;

  /** SUBSCRIBE_START: the first group of the range. */
  started(group: number): void {
    this.#start ??= group;
  }

  /** The first group of the range (SUBSCRIBE_START), once the publisher said it. */
  get start(): number | undefined {
    return this.#start;
  }

  /** SUBSCRIBE_END: one past the last group (0: none). */
  declared(end: number): void {
    this.#end = end;
  }

  /** SUBSCRIBE_DROP: groups `start..=end` will not come. */
  dropped(start: number, end: number): void {
    if (start <= end) this.#settled.addRange(start, end);
  }

  /** Group `sequence` completed or failed: it is owed no more. */
  settled(sequence: number): void {
    this.#settled.add(sequence);
  }

  /** The publisher FINed the subscribe stream. */
  finished(): void {
    this.#fin = true;
  }

  /** True once the publisher FINed the subscribe stream. */
  get fin(): boolean {
    return this.#fin;
  }

  /** True when group `sequence` is at or past the declared end: the publisher said it would not come. */
  refuses(sequence: number): boolean {
    return this.#end !== undefined && sequence >= this.#end;
  }

  /** True once the FIN came and every group of the range completed or was reported. */
  get complete(): boolean {
    if (!this.#fin) return false;
    const end = this.#end;
    if (end === undefined) return true;
    const from = this.#start ?? this.#settled.first ?? end;
    return from >= end || this.#settled.nextMissing(from) >= end;
  }

  /** True when the FIN came more than {@link END_GRACE_MS} before `nowMs` (counted from the first tick after it). */
  overdue(nowMs: number): boolean {
    if (!this.#fin) return false;
    this.#waitingSince ??= nowMs;
    return nowMs - this.#waitingSince >= END_GRACE_MS;
  }
}
