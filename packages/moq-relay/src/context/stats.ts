/** Counters a session reports (the metrics module implements them; tests may count). */
export interface SessionStats {
  /** A group stream was opened to (`out`) or accepted from (`in`) the peer. */
  group(direction: "in" | "out"): void;
  /** A frame of `bytes` payload bytes was written to / read from the peer. */
  frame(direction: "in" | "out", bytes: number): void;
  /** A downstream subscription started (+1) or ended (-1). */
  subscription(delta: 1 | -1): void;
  /** A group was skipped for a slow subscriber. */
  skipped(): void;
  /** An inbound group went past `maxGroupBytes` and was aborted (optional: older sinks lack it). */
  oversized?(): void;
  /** A group went downstream with frames missing and was reset instead of finished. */
  incomplete?(): void;
  /**
   * One of our group streams was reset with `code`: skipped for a slow subscriber, cancelled with
   * its subscription, sent incomplete, or at the peer's request (optional: older sinks lack it).
   */
  groupReset?(code: number): void;
  /** A group could not be delivered to a subscriber (gone before it was handed out) and was dropped explicitly. */
  dropped?(): void;
  /** An announce of the peer was not taken (`path-parts`: root plus suffix past the wire's limit). */
  refused?(reason: "path-parts"): void;
}

/** Stats that count nothing. */
export const NO_STATS: SessionStats = {
  group: () => undefined,
  frame: () => undefined,
  subscription: () => undefined,
  skipped: () => undefined,
  oversized: () => undefined,
  dropped: () => undefined,
  refused: () => undefined,
  incomplete: () => undefined,
  groupReset: () => undefined,
};
