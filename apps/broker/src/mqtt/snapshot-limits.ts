/**
 * What a restored store may hold: the limits a client is held to apply to what the store kept
 * from before they were set (or from a broker that had none).
 * @module
 */
import { type RouterSnapshot } from "@handoff/mqtt-router";
import { topicLevels } from "@handoff/mqtt-router/codec";

/** A snapshot with what broke the limits taken out, and the topics taken out. */
export interface LimitedSnapshot {
  readonly snapshot: RouterSnapshot;
  /** Retained topics deeper than the limit, skipped. */
  readonly skippedRetained: readonly string[];
}

/**
 * Skips retained messages on topics deeper than `maxTopicLevels`: no client could publish them
 * now, and a store that once accepted one must still load.
 */
export function withinTopicLevels(snapshot: RouterSnapshot, maxTopicLevels: number): LimitedSnapshot {
  const skippedRetained: string[] = [];
  const retained = snapshot.retained.filter((m) => {
    if (topicLevels(m.topic) <= maxTopicLevels) return true;
    skippedRetained.push(m.topic);
    return false;
  });
  return { snapshot: skippedRetained.length === 0 ? snapshot : { ...snapshot, retained }, skippedRetained };
}
