/**
 * A byte pipe to one MQTT client, whatever carries it (TCP, TLS, WebSocket). Writes made in the
 * same tick are batched into one socket write; the buffered size tells the broker when a slow
 * reader should stop getting QoS 0 traffic.
 * @module
 */

/**
 * Bytes a transport hands its connection per call of {@link TransportEvents.data}, at most: the
 * listeners pace their input to it, one slice per event-loop turn, and the broker sets the
 * protocol's input budget to the same, so a burst is taken over many turns on both sides.
 */
export const SLICE_BYTES = 4096;

/** One client connection's bytes. */
export interface Transport {
  /** `host:port` of the peer, for logs. */
  readonly remote: string;
  /** Which listener accepted it, for logs and metrics. */
  readonly listener: "tcp" | "tls" | "ws" | "wss";
  /** Queues bytes for sending; they leave together at the end of the tick. */
  write(bytes: Uint8Array): void;
  /** Bytes written but not yet taken by the kernel. */
  readonly buffered: number;
  /** Stops taking input from the client (flow control); the kernel's buffer then slows its sender. */
  pauseReading(): void;
  /** Takes input again. */
  resumeReading(): void;
  /** Flushes what is queued, then closes. */
  close(): void;
  /** Drops the connection at once. */
  destroy(): void;
}

/** Whether the handler asked to stop reading (flow control): input pacing must not resume then. */
export interface ReadingState {
  paused: boolean;
}

/** What a transport reports to its connection handler. */
export interface TransportEvents {
  /** Bytes from the client, at most {@link SLICE_BYTES} a call. */
  data(chunk: Uint8Array): void;
  /** The connection is gone (closed by either side or failed). Called once. */
  closed(): void;
}

/**
 * Collects writes made during one tick and hands them to `flush` in one go at the end of it, so a
 * fan-out of many small packets to one client costs one syscall, not one per packet.
 */
export class WriteBatch {
  /** This tick's writes; none between ticks (an idle client holds no array). */
  #chunks: Uint8Array[] | undefined;
  #bytes = 0;
  #scheduled = false;
  readonly #flush: (chunks: Uint8Array[], bytes: number) => void;

  constructor(flush: (chunks: Uint8Array[], bytes: number) => void) {
    this.#flush = flush;
  }

  /** Bytes waiting for the end of the tick. */
  get pending(): number {
    return this.#bytes;
  }

  /** Adds `bytes` to this tick's batch. */
  push(bytes: Uint8Array): void {
    (this.#chunks ??= []).push(bytes);
    this.#bytes += bytes.byteLength;
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => {
        this.flushNow();
      });
    }
  }

  /** Hands over what is queued now. */
  flushNow(): void {
    this.#scheduled = false;
    const chunks = this.#chunks;
    if (chunks === undefined) return;
    const bytes = this.#bytes;
    this.#chunks = undefined;
    this.#bytes = 0;
    this.#flush(chunks, bytes);
  }
}
