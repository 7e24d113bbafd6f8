/** What the scheduler needs to know of an outbound group stream. */
export interface Scheduled {
  /** Track priority from the SUBSCRIBE (higher first). */
  readonly priority: number;
  /** Group sequence (older first within a priority, so readers in sequence order skip nothing). */
  readonly sequence: number;
  /** Creation order, the final tie-break. */
  readonly order: number;
}

/** Send order: higher priority first, then the older group, then the earlier one. */
export function compareScheduled(a: Scheduled, b: Scheduled): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.sequence !== b.sequence) return a.sequence - b.sequence;
  return a.order - b.order;
}

/** The entry to skip when over the limit: the oldest group of the lowest priority. */
export function victim<T extends Scheduled>(items: readonly T[]): T | undefined {
  let worst: T | undefined;
  for (const item of items) {
    if (worst === undefined) {
      worst = item;
      continue;
    }
    // Lowest priority loses; within it the oldest group is the least useful to a live reader.
    if (item.priority < worst.priority || (item.priority === worst.priority && item.sequence < worst.sequence)) worst = item;
  }
  return worst;
}
