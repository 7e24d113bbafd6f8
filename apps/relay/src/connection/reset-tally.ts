import type { SessionStats } from "@handoff/moq-relay";

/**
 * A session's stats that also tally its group resets by code (`resets`), passing everything on
 * to `stats` (the relay's metrics): the session's close is logged with the tally, so an operator
 * sees why its groups were reset without a line per reset.
 */
export function tallyResets(stats: SessionStats): { readonly stats: SessionStats; readonly resets: Map<number, number> } {
  const resets = new Map<number, number>();
  return {
    resets,
    stats: {
      group: (direction) => {
        stats.group(direction);
      },
      frame: (direction, bytes) => {
        stats.frame(direction, bytes);
      },
      subscription: (delta) => {
        stats.subscription(delta);
      },
      skipped: () => {
        stats.skipped();
      },
      oversized: () => stats.oversized?.(),
      incomplete: () => stats.incomplete?.(),
      dropped: () => stats.dropped?.(),
      refused: (reason) => stats.refused?.(reason),
      groupReset: (code) => {
        resets.set(code, (resets.get(code) ?? 0) + 1);
        stats.groupReset?.(code);
      },
    },
  };
}
