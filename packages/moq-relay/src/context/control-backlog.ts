import type { StreamId } from "@handoff/qmux";

/**
 * Writes to the framing: how many bytes it accepted (FIN applies only when all were), or
 * undefined when the stream takes nothing any more (reset, unknown, session closed).
 */
export type FramingWrite = (id: StreamId, bytes: Uint8Array, fin: boolean) => number | undefined;

interface Queue {
  readonly chunks: Uint8Array[];
  bytes: number;
  fin: boolean;
}

/**
 * Control messages (announces, subscribe replies, SETUP, GOAWAY, PROBE reports) written whole: the
 * framing takes what its buffers allow and the rest waits here, in order, until the stream is
 * writable again. A message is never cut short, so a peer that stops reading sees a stream that
 * is late, never one that is corrupt. Bounded: past `limit` bytes waiting on all streams together,
 * `overflow` runs (the session closes: its peer is not reading).
 */
export class ControlBacklog {
  readonly #queues = new Map<StreamId, Queue>();
  #bytes = 0;
  #overflowed = false;
  readonly #write: FramingWrite;
  readonly #limit: number;
  readonly #overflow: () => void;

  constructor(
    write: FramingWrite,
    /** Bytes all streams together may hold here. */
    limit: number,
    /** The limit was passed (once). */
    overflow: () => void,
  ) {
    this.#write = write;
    this.#limit = limit;
    this.#overflow = overflow;
  }

  /** Bytes waiting for the framing on all streams. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Writes `bytes` (then FIN) on stream `id` whole: now as far as the framing takes it, the rest later. */
  send(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    const queue = this.#queues.get(id);
    if (queue !== undefined) {
      // Behind bytes already waiting: order is kept by queuing.
      if (bytes.length > 0) this.#hold(queue, bytes);
      queue.fin ||= fin;
      return;
    }
    const accepted = this.#write(id, bytes, fin);
    if (accepted === undefined || accepted === bytes.length) return;
    const rest: Queue = { chunks: [], bytes: 0, fin };
    this.#queues.set(id, rest);
    this.#hold(rest, bytes.subarray(accepted));
  }

  /** Stream `id` has room again: writes what waits for it, as far as the framing takes it. */
  writable(id: StreamId): void {
    const queue = this.#queues.get(id);
    if (queue === undefined) return;
    while (queue.chunks.length > 0) {
      const head = queue.chunks[0];
      if (head === undefined) break;
      const last = queue.chunks.length === 1;
      const accepted = this.#write(id, head, last && queue.fin);
      if (accepted === undefined) {
        this.drop(id);
        return;
      }
      queue.bytes -= accepted;
      this.#bytes -= accepted;
      if (accepted < head.length) {
        queue.chunks[0] = head.subarray(accepted);
        return;
      }
      queue.chunks.shift();
    }
    this.#queues.delete(id);
  }

  /** Forgets what waits on stream `id` (it was reset, or the peer stopped it). */
  drop(id: StreamId): void {
    const queue = this.#queues.get(id);
    if (queue === undefined) return;
    this.#bytes -= queue.bytes;
    this.#queues.delete(id);
  }

  /** Forgets everything (the session ended). */
  clear(): void {
    this.#queues.clear();
    this.#bytes = 0;
  }

  #hold(queue: Queue, bytes: Uint8Array): void {
    queue.chunks.push(bytes);
    queue.bytes += bytes.length;
    this.#bytes += bytes.length;
    if (this.#bytes > this.#limit && !this.#overflowed) {
      this.#overflowed = true;
      this.#overflow();
    }
  }
}
