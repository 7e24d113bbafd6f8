import type { FramingEvent } from "./events.js";
import { SendCredit } from "./flow.js";
import { MAX_STREAM_PAYLOAD, type Frame } from "./frame.js";
import type { SendHalf, StreamState } from "./stream-table.js";

/** What the scheduler asks of the connection it serves. */
export interface SchedulerHooks {
  /** Puts a frame on the wire. */
  frame(frame: Frame): void;
  /** Reports an event to the application ("writable"). */
  event(event: FramingEvent): void;
  /** A stream's sending side just became terminal (FIN or reset sent). */
  finished(stream: StreamState): void;
}

/** Buffer caps of the sending side. */
export interface SendLimits {
  /** Bytes one stream may hold queued. */
  readonly maxStreamBuffer: number;
  /** Bytes all streams together may hold queued. */
  readonly maxConnectionBuffer: number;
}

/**
 * The sending side of a connection: per-stream queues bounded by the buffer caps,
 * sent round-robin one frame per stream per turn, never beyond the peer's stream
 * and connection credit; *_BLOCKED is reported once per limit.
 */
export class SendScheduler {
  /** The peer's connection-level credit (MAX_DATA). */
  readonly conn: SendCredit;
  #queued = 0;
  readonly #pending = new Set<StreamState>();
  readonly #waiting = new Set<StreamState>();
  readonly #flowControl: boolean;
  readonly #limits: SendLimits;
  readonly #hooks: SchedulerHooks;

  /** A scheduler; without flow control (legacy framing) credit is unlimited. */
  constructor(
    flowControl: boolean,
    limits: SendLimits,
    hooks: SchedulerHooks,
  ) {
    this.#flowControl = flowControl;
    this.#limits = limits;
    this.#hooks = hooks;
    this.conn = new SendCredit(flowControl ? 0 : Infinity);
  }

  /** Bytes queued on all streams. */
  get buffered(): number {
    return this.#queued;
  }

  /**
   * Accepts as much of `bytes` as the credit plus the buffer caps allow, then
   * sends what it can. FIN is taken only with the last byte.
   */
  write(stream: StreamState, send: SendHalf, bytes: Uint8Array, fin: boolean): { accepted: number; buffered: number } {
    const direct = Math.min(send.credit.available, this.conn.available);
    const room = Math.max(0, Math.min(this.#limits.maxStreamBuffer - send.queued, this.#limits.maxConnectionBuffer - this.#queued));
    const accepted = Math.min(bytes.length, direct + room);
    if (accepted > 0) {
      send.queue.push(accepted === bytes.length ? bytes : bytes.subarray(0, accepted));
      send.queued += accepted;
      this.#queued += accepted;
    }
    if (accepted === bytes.length) send.finQueued = fin;
    else {
      send.wantWritable = true;
      this.#waiting.add(stream);
    }
    if (send.queued > 0 || send.finQueued) this.#pending.add(stream);
    this.flush();
    return { accepted, buffered: send.queued };
  }

  /** Abandons a stream's sending side: drops its queue and sends RESET_STREAM. */
  reset(stream: StreamState, send: SendHalf, code: number): void {
    this.#drop(stream, send);
    send.done = true;
    this.#hooks.frame({ type: "reset-stream", id: stream.id, code, finalSize: send.offset });
    this.#hooks.finished(stream);
  }

  /** Drops every queue (the connection is closing). */
  dropAll(streams: Iterable<StreamState>): void {
    for (const stream of streams) if (stream.send !== undefined) this.#drop(stream, stream.send);
  }

  /** Sends queued data round-robin as far as credit goes, then reports streams with room again. */
  flush(): void {
    let progress = true;
    while (progress && this.#pending.size > 0) {
      progress = false;
      for (const stream of [...this.#pending]) if (this.#sendOne(stream)) progress = true;
    }
    for (const stream of this.#waiting) {
      const send = stream.send;
      if (send === undefined || send.done) {
        this.#waiting.delete(stream);
        continue;
      }
      if (send.queued <= this.#limits.maxStreamBuffer / 2 && this.#queued <= this.#limits.maxConnectionBuffer / 2) {
        send.wantWritable = false;
        this.#waiting.delete(stream);
        this.#hooks.event({ kind: "writable", streamId: stream.id });
      }
    }
  }

  /** Sends at most one frame of `stream`; true if it sent one. */
  #sendOne(stream: StreamState): boolean {
    const send = stream.send;
    if (send === undefined || send.done || (send.queued === 0 && !send.finQueued)) {
      this.#pending.delete(stream);
      return false;
    }
    let data: Uint8Array = new Uint8Array(0);
    const head = send.queue[0];
    if (head !== undefined) {
      const n = Math.min(head.length, MAX_STREAM_PAYLOAD, send.credit.available, this.conn.available);
      if (n <= 0) {
        this.#reportBlocked(stream, send.credit);
        return false;
      }
      data = n === head.length ? head : head.subarray(0, n);
      if (n === head.length) send.queue.shift();
      else send.queue[0] = head.subarray(n);
      send.queued -= n;
      this.#queued -= n;
      send.credit.used += n;
      this.conn.used += n;
    }
    const fin = send.queued === 0 && send.finQueued;
    this.#hooks.frame({ type: "stream", id: stream.id, offset: this.#flowControl ? send.offset : undefined, data, fin });
    send.offset += data.length;
    if (send.queued === 0) this.#pending.delete(stream);
    if (fin) {
      send.done = true;
      this.#hooks.finished(stream);
    }
    return true;
  }

  #reportBlocked(stream: StreamState, credit: SendCredit): void {
    if (!this.#flowControl) return;
    if (credit.available <= 0 && credit.shouldReportBlocked()) {
      this.#hooks.frame({ type: "stream-data-blocked", id: stream.id, limit: credit.max });
    }
    if (this.conn.available <= 0 && this.conn.shouldReportBlocked()) {
      this.#hooks.frame({ type: "data-blocked", limit: this.conn.max });
    }
  }

  #drop(stream: StreamState, send: SendHalf): void {
    this.#queued -= send.queued;
    send.queue.length = 0;
    send.queued = 0;
    send.finQueued = false;
    this.#pending.delete(stream);
    this.#waiting.delete(stream);
  }
}
