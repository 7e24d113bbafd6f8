/**
 * Decoder limits. Every buffered item is bounded by one of these, so a peer can never make a
 * reader hold more than `max(maxMessageSize, maxFrameSize)` plus a few header bytes.
 */
export interface LiteLimits {
  /** Largest size-prefixed control message body, in bytes. */
  readonly maxMessageSize: number;
  /** Largest frame payload, in bytes. */
  readonly maxFrameSize: number;
  /** Largest string (track name, URI, parameter text), in UTF-8 bytes. */
  readonly maxStringLength: number;
  /** Largest broadcast path, in UTF-8 bytes before normalisation. */
  readonly maxPathLength: number;
  /** Most slash-separated parts in a path (the reference's `Path::MAX_PARTS`). */
  readonly maxPathParts: number;
  /** Most entries in one list: ANNOUNCE_INIT suffixes, SETUP versions. */
  readonly maxListEntries: number;
  /** Most hop ids in one announce (the reference's `MAX_HOPS`). */
  readonly maxHops: number;
  /** Most parameters in one SETUP (the reference's `MAX_PARAMS`). */
  readonly maxParameters: number;
}

/** Defaults: the reference's own bounds where it has them, generous but finite elsewhere. */
export const DEFAULT_LIMITS: LiteLimits = {
  maxMessageSize: 1 << 20,
  maxFrameSize: 16 << 20,
  maxStringLength: 8192,
  maxPathLength: 4096,
  maxPathParts: 32,
  maxListEntries: 4096,
  maxHops: 32,
  maxParameters: 64,
};

/** Fills unspecified limits from {@link DEFAULT_LIMITS}. */
export function resolveLimits(partial?: Partial<LiteLimits>): LiteLimits {
  return partial === undefined ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, ...partial };
}
