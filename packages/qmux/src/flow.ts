// Flow-control credit (RFC 9000 §4): one shape for bytes and for stream counts.

/**
 * A limit we grant the peer (connection data, stream data or stream count).
 * The peer's usage must stay within `max`; as the application consumes, the
 * limit slides forward by `window`.
 */
export class RecvWindow {
  /** The limit the peer was last told. */
  max: number;
  /** How much the peer has used (highest offset, or streams opened). */
  received = 0;
  /** How much the application has released. */
  consumed = 0;
  readonly #eager: boolean;

  /**
   * Starts with a limit of `window`. An `eager` window slides on every release: it
   * enforces "at most `window` outstanding" for a peer that is never told the limit
   * (the legacy framing has no MAX_STREAMS).
   */
  constructor(
    readonly window: number,
    eager = false,
  ) {
    this.max = window;
    this.#eager = eager;
  }

  /** Records usage up to `end`; false if that exceeds the limit (a violation). */
  receiveTo(end: number): boolean {
    if (end > this.max) return false;
    if (end > this.received) this.received = end;
    return true;
  }

  /**
   * Releases `n` units and returns a new limit to advertise, or undefined. As in
   * the reference, an update goes out once the releasable credit exceeds half of
   * what the peer still has, so a blocked peer is unblocked at once and an
   * unblocked one is not flooded with updates.
   */
  consume(n: number): number | undefined {
    this.consumed = Math.min(this.consumed + n, this.received);
    const next = this.consumed + this.window;
    const pending = next - this.max;
    if (pending > 0 && (this.#eager || 2 * pending > this.max - this.received)) {
      this.max = next;
      return next;
    }
    return undefined;
  }
}

/** A limit the peer granted us (its MAX_DATA, MAX_STREAM_DATA or MAX_STREAMS). */
export class SendCredit {
  /** Units used so far. */
  used = 0;
  /** The limit for which we last sent a *_BLOCKED frame (-1: none). */
  blockedAt = -1;

  /** Starts with the peer's initial limit. */
  constructor(public max: number) {}

  /** Units still available. */
  get available(): number {
    return this.max - this.used;
  }

  /** Applies a new limit; limits never shrink (smaller ones are ignored, RFC 9000 §19.9). */
  raise(max: number): boolean {
    if (max <= this.max) return false;
    this.max = max;
    return true;
  }

  /** True once per limit value: whether a *_BLOCKED frame should be sent now. */
  shouldReportBlocked(): boolean {
    if (this.blockedAt === this.max) return false;
    this.blockedAt = this.max;
    return true;
  }
}
