import { Pinger } from "./ping.js";

/** What a `tick` calls for: close the connection (silently, as QUIC does), send a keep-alive, or nothing. */
export type LivenessDue =
  | { readonly kind: "close"; readonly reason: "handshake timeout" | "idle timeout" }
  | { readonly kind: "ping"; readonly sequence: number }
  | undefined;

/**
 * A connection's timers without timers: the handshake deadline, the idle timeout (the smaller
 * non-zero max_idle_timeout, RFC 9000 §10.1) and qmux-01+'s keep-alive pings, all read from the
 * times the owner passes to `tick`. Inbound activity is noted as it happens and dated at the next
 * tick, so a busy connection costs no clock reads.
 */
export class Liveness {
  /** QX_PING bookkeeping, also for the peer's requests and responses. */
  readonly pinger: Pinger;
  readonly #handshakeTimeoutMs: number;
  #activity = true;
  #startedAt: number | undefined;
  #lastActivityAt = 0;

  /** `strictPings`: qmux-02's ping sequence rules; `handshakeTimeoutMs` 0 waits forever. */
  constructor(strictPings: boolean, handshakeTimeoutMs: number) {
    this.pinger = new Pinger(strictPings);
    this.#handshakeTimeoutMs = handshakeTimeoutMs;
  }

  /** The peer was heard from (a frame, or liveness seen outside the framing). */
  heard(): void {
    this.#activity = true;
  }

  /**
   * Advances to `nowMs`. `handshaking`: still waiting for the peer's transport parameters;
   * `ours` / `peer`: the two max_idle_timeouts (0 = none); `pings`: the version has QX_PING.
   */
  due(nowMs: number, handshaking: boolean, ours: number, peer: number, pings: boolean): LivenessDue {
    this.#startedAt ??= nowMs;
    if (this.#activity) {
      this.#activity = false;
      this.#lastActivityAt = nowMs;
      this.pinger.heard();
    }
    if (handshaking) {
      const expired = this.#handshakeTimeoutMs > 0 && nowMs - this.#startedAt >= this.#handshakeTimeoutMs;
      return expired ? { kind: "close", reason: "handshake timeout" } : undefined;
    }
    const idle = effectiveIdle(ours, peer);
    const quiet = nowMs - this.#lastActivityAt;
    if (idle > 0 && quiet >= idle) return { kind: "close", reason: "idle timeout" };
    // qmux-01+: a quiet peer is asked to prove it is alive before the timeout.
    const sequence = pings ? this.pinger.due(quiet, idle) : undefined;
    return sequence === undefined ? undefined : { kind: "ping", sequence };
  }
}

function effectiveIdle(ours: number, peer: number): number {
  if (ours === 0) return peer;
  if (peer === 0) return ours;
  return Math.min(ours, peer);
}
