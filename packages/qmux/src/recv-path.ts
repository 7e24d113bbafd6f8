import { asError, flowError, FramingError, TransportError, violation } from "./errors.js";
import type { EventQueue } from "./event-queue.js";
import type { RecvWindow } from "./flow.js";
import type { StreamId } from "./stream-id.js";
import type { RecvHalf, StreamState, StreamTable } from "./stream-table.js";

/** What the receive path needs of its connection. */
export interface RecvHost {
  readonly streams: StreamTable;
  readonly connRecv: RecvWindow;
  readonly events: EventQueue;
  readonly autoConsume: boolean;
  /** Reports a stream the peer opened implicitly. */
  announce(stream: StreamState): void;
  /** Marks the receive side done and retires the stream if both sides are. */
  closeRecv(stream: StreamState): void;
  /** Returns connection credit for bytes nobody will consume. */
  releaseConnection(n: number): void;
  /** Releases credit for bytes the application took. */
  consume(streamId: StreamId, n: number): void;
}

/**
 * The inbound side of streams: in-order data against the windows and final sizes,
 * RESET_STREAM, and qmux-02's RESET_STREAM_AT (a reset that waits for its reliable
 * bytes). Each handler returns the violation that closes the connection, if any.
 */
export class RecvPath {
  readonly #host: RecvHost;

  /** Serves one connection's streams. */
  constructor(host: RecvHost) {
    this.#host = host;
  }

  onStream(id: StreamId, offset: number | undefined, data: Uint8Array, fin: boolean): FramingError | undefined {
    const { stream, opened } = this.#host.streams.lookup(id, "recv");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.#host.announce(stream);
    const recv = stream.recv;
    // @moq/qmux 0.0.6 can still send data it had queued after resetting a stream
    // (its write loop outlives the abort); the reference ignores it, and so do we.
    if (recv === undefined || recv.resetByPeer) return undefined;
    const received = recv.window.received;
    // Without the OFF bit the frame continues where the last one ended: @moq/qmux
    // 0.0.6 never sends offsets. Our carriers are ordered and reliable, so an
    // explicit offset elsewhere (a gap, or a retransmission overlap) cannot come
    // from a correct peer and is refused.
    if (offset !== undefined && offset !== received) {
      return violation(`stream ${id}: data at offset ${offset}, expected ${received}`);
    }
    const end = received + data.length;
    if (recv.finalSize !== undefined && (end > recv.finalSize || (fin && end !== recv.finalSize))) {
      return new FramingError(TransportError.FINAL_SIZE_ERROR, `stream ${id}: data beyond its final size`);
    }
    if (!recv.window.receiveTo(end)) return flowError(`stream ${id}: beyond MAX_STREAM_DATA`);
    if (!this.#host.connRecv.receiveTo(this.#host.connRecv.received + data.length)) return flowError("beyond MAX_DATA");
    if (recv.done) return undefined;
    if (fin) recv.finalSize = end;
    if (recv.stopped) {
      this.#host.releaseConnection(data.length);
      if (fin) this.#host.closeRecv(stream);
      return undefined;
    }
    const resetAt = recv.resetAt;
    if (resetAt !== undefined && end >= resetAt.reliableSize) {
      // The reliable part is complete: deliver it, drop the rest, then reset.
      const kept = data.subarray(0, resetAt.reliableSize - received);
      if (kept.length > 0) this.#deliver(id, kept, false);
      this.#host.releaseConnection(data.length - kept.length);
      return this.#resetRecv(stream, recv, resetAt.code, resetAt.finalSize);
    }
    if (data.length > 0 || fin) this.#deliver(id, data, fin);
    if (fin) this.#host.closeRecv(stream);
    return undefined;
  }

  #deliver(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    this.#host.events.push({ kind: "stream-data", streamId: id, bytes, fin });
    if (this.#host.autoConsume) this.#host.consume(id, bytes.length);
  }

  onResetAt(id: StreamId, code: number, finalSize: number, reliableSize: number): FramingError | undefined {
    const { stream, opened } = this.#host.streams.lookup(id, "recv");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.#host.announce(stream);
    const recv = stream.recv;
    if (recv === undefined || recv.done) return undefined;
    if (recv.window.received >= reliableSize) return this.#resetRecv(stream, recv, code, finalSize);
    if (recv.finalSize !== undefined && finalSize !== recv.finalSize) {
      return new FramingError(TransportError.FINAL_SIZE_ERROR, `stream ${id}: reset changes the final size`);
    }
    // The bytes below reliableSize are still coming (in order): reset once they are in.
    recv.finalSize = finalSize;
    recv.resetAt = { code, finalSize, reliableSize: Math.min(reliableSize, recv.resetAt?.reliableSize ?? reliableSize) };
    return undefined;
  }

  onReset(id: StreamId, code: number, claimedFinalSize: number): FramingError | undefined {
    const { stream, opened } = this.#host.streams.lookup(id, "recv");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.#host.announce(stream);
    const recv = stream.recv;
    if (recv === undefined) return undefined;
    return this.#resetRecv(stream, recv, code, claimedFinalSize);
  }

  #resetRecv(stream: StreamState, recv: RecvHalf, code: number, claimedFinalSize: number): FramingError | undefined {
    const id = stream.id;
    const received = recv.window.received;
    // The reference takes max(final size, received): @moq/qmux 0.0.6 always sends 0.
    const finalSize = Math.max(claimedFinalSize, received);
    if (recv.finalSize !== undefined && finalSize !== recv.finalSize) {
      return new FramingError(TransportError.FINAL_SIZE_ERROR, `stream ${id}: reset changes the final size`);
    }
    if (!recv.window.receiveTo(finalSize)) return flowError(`stream ${id}: final size beyond MAX_STREAM_DATA`);
    const gap = finalSize - received;
    if (!this.#host.connRecv.receiveTo(this.#host.connRecv.received + gap)) return flowError("final size beyond MAX_DATA");
    // Bytes that will never arrive cannot be consumed by anyone: release them now.
    this.#host.releaseConnection(gap);
    if (recv.done) return undefined;
    recv.finalSize = finalSize;
    recv.resetByPeer = true;
    if (!recv.stopped) this.#host.events.push({ kind: "stream-reset", streamId: id, code });
    this.#host.closeRecv(stream);
    return undefined;
  }
}
