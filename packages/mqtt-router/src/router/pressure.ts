/**
 * Flow control marks on a session's queue (docs/INVARIANTS.md, router invariant 8): an online session whose
 * queue reaches the high-water mark is *congested*, and the app slows the publishers feeding it
 * (stops reading them, holds their acknowledgements) until the queue is back at the low-water mark,
 * instead of letting the queue reach its bound and drop what was acknowledged. Offline sessions
 * never push back: their bounds and overflow policy apply.
 * @module
 */
import type { Session } from "./mqtt-session.js";

/** Where flow control starts and ends, as fractions of the queue's bounds (count and bytes). */
export interface PressureMarks {
  /** Congested at or above this share of either bound. Default 0.5. */
  readonly high: number;
  /** Relieved at or below this share of both bounds. Default 0.25. */
  readonly low: number;
}

/** The default marks: half the bound leaves the other half for what is already on its way. */
export const DEFAULT_MARKS: PressureMarks = { high: 0.5, low: 0.25 };

/** True when `session` is online and its queue is at or above the high-water mark. */
export function isCongested(session: Session, marks: PressureMarks): boolean {
  if (session.owner === undefined) return false;
  const { queue } = session;
  const { maxCount, maxBytes } = queue.limits;
  return queue.count >= maxCount * marks.high || queue.bytes >= maxBytes * marks.high;
}

/** True while `session` is online and its queue is still above the low-water mark. */
export function isBacklogged(session: Session, marks: PressureMarks): boolean {
  if (session.owner === undefined) return false;
  const { queue } = session;
  const { maxCount, maxBytes } = queue.limits;
  return queue.count > maxCount * marks.low || queue.bytes > maxBytes * marks.low;
}
