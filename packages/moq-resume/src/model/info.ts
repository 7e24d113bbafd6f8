/**
 * Track info: the properties a subscriber learns about a track.
 * @module
 */

/** Properties of a track. */
export interface TrackInfo {
  /** Delivery priority, 0..255 (higher first). */
  readonly priority: number;
  /** Whether groups should be delivered in sequence order. */
  readonly ordered: boolean;
  /** Retention window in milliseconds (0 = no limit). */
  readonly maxLatencyMs: number;
  /** Units per second of frame timestamps (lite-05+). */
  readonly timescale: number;
}

/** The info a track gets when none is given. */
export const DEFAULT_TRACK_INFO: TrackInfo = { priority: 0, ordered: false, maxLatencyMs: 0, timescale: 1000 };

/** Fills the missing fields of `info` with defaults and clamps the priority to a byte. */
export function trackInfo(info: Partial<TrackInfo> = {}): TrackInfo {
  const merged = { ...DEFAULT_TRACK_INFO, ...info };
  return { ...merged, priority: Math.min(255, Math.max(0, Math.trunc(merged.priority))) };
}
