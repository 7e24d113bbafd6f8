import type { FramingEvent } from "./events.js";
import { SendCredit } from "./flow.js";
import { MAX_STREAM_PAYLOAD, type Frame } from "./frame.js";
import type { SendHalf, StreamState } from "./stream-table.js";
import { partsLength } from "./bytes.js";

const EMPTY = new Uint8Array(0);

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
  /**
   * Streams with something to send, each once: `send.pending` is the membership. Not a Set: V8
   * re-makes a Set's table when a delete leaves it under half full, so a set that empties with
   * every frame sent allocated a table per frame, kept past young collections (promoted garbage).
   */
  readonly #pending: StreamState[] = [];
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
   * sends what it can; returns the bytes accepted (`send.queued` is what stays buffered). FIN is
   * taken only with the last byte.
   */
  write(stream: StreamState, send: SendHalf, bytes: Uint8Array | readonly Uint8Array[], fin: boolean): number {
    const direct = Math.min(send.credit.available, this.conn.available);
    const room = Math.max(0, Math.min(this.#limits.maxStreamBuffer - send.queued, this.#limits.maxConnectionBuffer - this.#queued));
    const parts = bytes instanceof Uint8Array ? [bytes] : bytes;
    const total = bytes instanceof Uint8Array ? bytes.length : partsLength(bytes);
    const accepted = Math.min(total, direct + room);
    // The queue keeps the caller's views (a relay's shared frame encodings), copied only into the wire unit.
    let left = accepted;
    for (const part of parts) {
      if (left === 0) break;
      if (part.length === 0) continue;
      const take = Math.min(part.length, left);
      send.queue.push(take === part.length ? part : part.subarray(0, take));
      left -= take;
    }
    send.queued += accepted;
    this.#queued += accepted;
    if (accepted === total) send.finQueued = fin;
    else {
      send.wantWritable = true;
      this.#waiting.add(stream);
    }
    if ((send.queued > 0 || send.finQueued) && !send.pending) {
      send.pending = true;
      this.#pending.push(stream);
    }
    this.flush();
    return accepted;
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
    const pending = this.#pending;
    let progress = true;
    while (progress && pending.length > 0) {
      progress = false;
      // One pass sends at most one frame per stream; the streams left with nothing to send leave
      // the list in the same pass (sending never writes, so no stream joins during it).
      let kept = 0;
      // Compacted in place: a slot is rewritten only after it was visited.
      for (const stream of pending) {
        if (this.#sendOne(stream)) progress = true;
        if (stream.send?.pending === true) pending[kept++] = stream;
      }
      pending.length = kept;
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
      if (send !== undefined) send.pending = false;
      return false;
    }
    let data: Uint8Array = EMPTY;
    let parts: Uint8Array[] | undefined;
    let n = 0;
    if (send.queue.length > 0) {
      const limit = Math.min(MAX_STREAM_PAYLOAD, send.credit.available, this.conn.available);
      if (limit <= 0) {
        this.#reportBlocked(stream, send.credit);
        return false;
      }
      // One frame gathers queued chunks up to the limit: writes made apart leave together.
      for (let head = send.queue[0]; head !== undefined && n < limit; head = send.queue[0]) {
        const take = Math.min(head.length, limit - n);
        const piece = take === head.length ? head : head.subarray(0, take);
        if (take === head.length) send.queue.shift();
        else send.queue[0] = head.subarray(take);
        if (n === 0) data = piece;
        else {
          parts ??= [data];
          parts.push(piece);
        }
        n += take;
      }
      send.queued -= n;
      this.#queued -= n;
      send.credit.used += n;
      this.conn.used += n;
    }
    const fin = send.queued === 0 && send.finQueued;
    const offset = this.#flowControl ? send.offset : undefined;
    this.#hooks.frame(parts === undefined ? { type: "stream", id: stream.id, offset, data, fin } : { type: "stream", id: stream.id, offset, data: EMPTY, fin, parts });
    send.offset += n;
    if (send.queued === 0) send.pending = false;
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
    // Left in the pending list: the next pass finds nothing to send and lets it go.
    this.#waiting.delete(stream);
  }
}
