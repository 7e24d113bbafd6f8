/**
 * What was injected when, in ms since the load started: the history checker reads it to tell
 * which connections a fault cut, and every violation is placed relative to the fault before it.
 * @module
 */
import type { FaultKind } from "./fault-schedule.js";

/** One injected fault. */
export interface FaultEvent {
  readonly kind: FaultKind;
  /** `n0`, `n1`, ... or `redis`. */
  readonly target: string;
  /** When the signal was sent (SIGKILL, SIGSTOP). */
  readonly start: number;
  /** When the target was back (listening again, or continued); undefined while it holds. */
  end?: number;
}

// A violation more than this long after a fault's recovery is put down to no fault.
const ATTRIBUTION_MS = 15_000;
const LEAD_MS = 1000;

/** ms as seconds with three decimals, the unit of every time the suite prints. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;

/** The faults of one run, in order. */
export class FaultTimeline {
  readonly events: FaultEvent[] = [];

  begin(kind: FaultKind, target: string, at: number): FaultEvent {
    const event: FaultEvent = { kind, target, start: at };
    this.events.push(event);
    return event;
  }

  /**
   * When `node` was killed or stopped at or after `from` (and, with `until`, before it): a
   * connection to it made at `from` stopped being served then, whatever its client saw.
   */
  cutOf(node: string, from: number, until = Infinity): number | undefined {
    return this.events.find((e) => e.target === node && (e.kind === "node-kill" || e.kind === "node-pause") && (e.end ?? Infinity) > from && e.start < until)?.start;
  }

  /** True while a fault holds, and for `settleMs` after the last one ended. */
  unsettled(now: number, settleMs: number): boolean {
    return this.events.some((e) => e.end === undefined || now < e.end + settleMs);
  }

  /**
   * The fault a moment `at` is put down to: the last one that started before it (or less than
   * {@link LEAD_MS} after: a message acknowledged just before a kill is lost by the kill), if recent.
   */
  attribute(at: number): FaultEvent | undefined {
    let found: FaultEvent | undefined;
    for (const e of this.events) if (e.start - LEAD_MS <= at && at <= (e.end ?? Infinity) + ATTRIBUTION_MS) found = e;
    return found;
  }

  /** `12.345 s (+0.210 s after node-kill n1 at 12.135 s, back at 13.000 s)`. */
  describe(at: number): string {
    const e = this.attribute(at);
    if (e === undefined) return `${seconds(at)} (no fault within ${String(ATTRIBUTION_MS / 1000)} s before)`;
    const back = e.end === undefined ? "still down" : `back at ${seconds(e.end)}`;
    const offset = at >= e.start ? `+${seconds(at - e.start)} after` : `${seconds(e.start - at)} before`;
    return `${seconds(at)} (${offset} ${e.kind} ${e.target} at ${seconds(e.start)}, ${back})`;
  }
}
