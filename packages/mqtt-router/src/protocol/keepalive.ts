/**
 * Keep alive bookkeeping: the client must send some packet within one and a half times the keep
 * alive interval, or the server closes the connection [MQTT-3.1.2-22] (3.1.1: [MQTT-3.1.2-24]).
 * Time is whatever the injected clock says, in milliseconds.
 */
export class Keepalive {
  #intervalMs = 0;
  #lastReceived: number;

  /** @param now the time the connection was opened */
  constructor(now: number) {
    this.#lastReceived = now;
  }

  /** Sets the keep alive in seconds (0 disables the check). */
  setInterval(seconds: number): void {
    this.#intervalMs = seconds * 1000;
  }

  /** Records that a packet arrived at `now`. */
  received(now: number): void {
    if (now > this.#lastReceived) this.#lastReceived = now;
  }

  /** True when the client has been silent for more than 1.5 × the keep alive at `now`. */
  expired(now: number): boolean {
    return this.#intervalMs > 0 && now - this.#lastReceived > this.#intervalMs * 1.5;
  }

  /** The time after which {@link expired} becomes true, or undefined when disabled. */
  deadline(): number | undefined {
    return this.#intervalMs > 0 ? this.#lastReceived + this.#intervalMs * 1.5 : undefined;
  }
}
