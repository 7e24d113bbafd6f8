/**
 * QX_PING (qmux-01+) bookkeeping for one connection: the answers owed to the peer's
 * requests, the keep-alive requests we send when the peer has been quiet, and
 * qmux-02's sequence rules (requests strictly increase; a response echoes a
 * sequence we sent).
 */
export class Pinger {
  #next = 0;
  #lastRequest: number | undefined;
  #pingedSince = false;
  #strict: boolean;

  /** `strict`: enforce qmux-02's sequence rules (qmux-01 has none). */
  constructor(strict: boolean) {
    this.#strict = strict;
  }

  /** Drops qmux-02's sequence rules: the connection settled on qmux-01. */
  relax(): void {
    this.#strict = false;
  }

  /** A request arrived; the reason it is a violation, if it is one. */
  onRequest(sequence: number): string | undefined {
    if (this.#strict && this.#lastRequest !== undefined && sequence <= this.#lastRequest) {
      return "QX_PING request sequence must strictly increase";
    }
    this.#lastRequest = sequence;
    return undefined;
  }

  /** A response arrived; the reason it is a violation, if it is one. */
  onResponse(sequence: number): string | undefined {
    if (this.#strict && sequence >= this.#next) return "QX_PING response echoes a sequence never sent";
    return undefined;
  }

  /** The peer was heard from: the next quiet spell may ping again. */
  heard(): void {
    this.#pingedSince = false;
  }

  /**
   * The sequence of a keep-alive request to send now, if one is due: once per quiet
   * spell, after a third of the idle timeout without inbound activity, so a live
   * peer answers well before the timeout closes the connection.
   */
  due(quietMs: number, idleTimeoutMs: number): number | undefined {
    if (idleTimeoutMs <= 0 || this.#pingedSince || quietMs < idleTimeoutMs / 3) return undefined;
    this.#pingedSince = true;
    return this.#next++;
  }
}
