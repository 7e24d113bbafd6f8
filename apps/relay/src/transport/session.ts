import { FramingError, TransportError } from "./errors.js";
import type { FramingEvent, FramingOptions, OpenResult, WriteResult } from "./events.js";
import { RecvWindow } from "./flow.js";
import { SendScheduler } from "./send-scheduler.js";
import type { Frame } from "./frame.js";
import type { StreamId } from "./stream-id.js";
import { StreamTable, type StreamState } from "./stream-table.js";
import { REFERENCE_PARAMS, type TransportParams } from "./transport-params.js";
import type { Wire } from "./wire.js";

const DEFAULT_STREAM_BUFFER = 1 << 20;
const DEFAULT_CONNECTION_BUFFER = 8 << 20;
const DEFAULT_LEGACY_PEER_STREAMS = 1000;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * The sans-I/O connection state machine shared by both framings: stream ids and
 * limits, flow control both ways, resets, stop-sending and close. Bytes come in
 * through `receive`, time through `tick`, and everything to do comes out of `poll`.
 * The wire decides the framing; without flow control (the legacy framing) credits
 * are unlimited and no parameters are exchanged.
 */
export class FramingSession {
  private readonly events: FramingEvent[] = [];
  private readonly streams: StreamTable;
  private readonly ours: TransportParams;
  private peer: TransportParams | undefined;
  private readonly sender: SendScheduler;
  private readonly connRecv: RecvWindow;
  private readonly autoConsume: boolean;
  private readonly handshakeTimeoutMs: number;
  private readonly server: boolean;
  private readonly refused = [false, false];
  private closed = false;
  private activity = true;
  private startedAt: number | undefined;
  private lastActivityAt = 0;

  /** Starts a connection over `wire`; qmux queues our transport parameters at once. */
  constructor(
    private readonly wire: Wire,
    options: FramingOptions,
  ) {
    this.ours = { ...REFERENCE_PARAMS, ...options.params };
    this.sender = new SendScheduler(
      wire.flowControl,
      {
        maxStreamBuffer: options.maxStreamBuffer ?? DEFAULT_STREAM_BUFFER,
        maxConnectionBuffer: options.maxConnectionBuffer ?? DEFAULT_CONNECTION_BUFFER,
      },
      {
        frame: (frame) => {
          this.emitFrame(frame);
        },
        event: (event) => this.events.push(event),
        finished: (stream) => {
          this.retire(stream);
        },
      },
    );
    this.autoConsume = options.autoConsume ?? false;
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const server = options.role === "server";
    this.server = server;
    if (wire.flowControl) {
      this.connRecv = new RecvWindow(this.ours.initialMaxData);
      this.streams = new StreamTable(server, this.ours.initialMaxStreamsBidi, this.ours.initialMaxStreamsUni, {
        recvWindow: (bidi, local) =>
          bidi
            ? local
              ? this.ours.initialMaxStreamDataBidiLocal
              : this.ours.initialMaxStreamDataBidiRemote
            : this.ours.initialMaxStreamDataUni,
        sendCredit: (bidi, local) => {
          const peer = this.peer;
          if (peer === undefined) return 0;
          return bidi
            ? local
              ? peer.initialMaxStreamDataBidiRemote
              : peer.initialMaxStreamDataBidiLocal
            : peer.initialMaxStreamDataUni;
        },
      });
      this.emitFrame({ type: "transport-parameters", params: this.ours });
    } else {
      const peerStreams = options.maxPeerStreams ?? DEFAULT_LEGACY_PEER_STREAMS;
      this.connRecv = new RecvWindow(Infinity);
      this.streams = new StreamTable(
        server,
        peerStreams,
        peerStreams,
        { recvWindow: () => Infinity, sendCredit: () => Infinity },
        true,
      );
      this.streams.localLimit[0].raise(Infinity);
      this.streams.localLimit[1].raise(Infinity);
      this.events.push({ kind: "ready" });
    }
  }

  /** The peer's transport parameters, once received (qmux only). */
  get peerParams(): TransportParams | undefined {
    return this.peer;
  }

  /**
   * The application protocol agreed in-band through the qmux application_protocols
   * parameter (plain TCP has no ALPN): the first of the server's list the client
   * also offered, as in the reference. Undefined until both lists are known, when
   * we offered none, or when they do not overlap.
   */
  get applicationProtocol(): string | undefined {
    const peer = this.peer?.applicationProtocols ?? [];
    const ours = this.ours.applicationProtocols;
    const [server, client] = this.server ? [ours, peer] : [peer, ours];
    return server.find((p) => client.includes(p));
  }

  /** True once the connection is closed (by either side, or a timeout). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Outbound bytes queued on all streams, waiting for the peer's credit. */
  get bufferedBytes(): number {
    return this.sender.buffered;
  }

  /** Number of streams not yet fully closed. */
  get liveStreams(): number {
    return this.streams.live.size;
  }

  /** Drains the events produced since the last call, in order. */
  poll(): FramingEvent[] {
    return this.events.splice(0, this.events.length);
  }

  /**
   * Feeds one inbound WebSocket message (or the next byte-stream chunk). Never
   * throws: a violation closes the connection with its QUIC error code. The
   * framing keeps views into `data`; do not reuse the buffer.
   */
  receive(data: Uint8Array): void {
    if (this.closed) return;
    this.activity = true;
    try {
      const { frames, error } = this.wire.push(data);
      for (const frame of frames) {
        const violation = this.onFrame(frame);
        if (violation !== undefined) {
          this.fail(violation);
          return;
        }
        if (this.hasClosed()) return;
      }
      if (error !== undefined) this.fail(error);
    } catch (cause) {
      // A bug, not peer input; fail closed rather than leave a half-applied state.
      this.fail(new FramingError(TransportError.INTERNAL_ERROR, `internal error: ${String(cause)}`));
    }
  }

  /** Notes liveness seen outside the framing (e.g. a WebSocket pong) for the idle timeout. */
  touch(): void {
    this.activity = true;
  }

  /**
   * Advances time to `nowMs` (any monotonic clock): closes the connection after
   * the handshake timeout without the peer's parameters, or after the effective
   * idle timeout (the smaller non-zero max_idle_timeout, RFC 9000 §10.1) with no
   * inbound activity. Both close silently, as QUIC does.
   */
  tick(nowMs: number): void {
    if (this.closed) return;
    this.startedAt ??= nowMs;
    if (this.activity) {
      this.activity = false;
      this.lastActivityAt = nowMs;
    }
    if (this.wire.flowControl && this.peer === undefined) {
      if (this.handshakeTimeoutMs > 0 && nowMs - this.startedAt >= this.handshakeTimeoutMs) {
        this.finish(TransportError.NO_ERROR, "handshake timeout", false, true);
      }
      return;
    }
    const idle = effectiveIdle(this.ours.maxIdleTimeout, this.peer?.maxIdleTimeout ?? 0);
    if (idle > 0 && nowMs - this.lastActivityAt >= idle) {
      this.finish(TransportError.NO_ERROR, "idle timeout", false, true);
    }
  }

  /** Opens a stream of ours, or refuses when the peer's stream limit is reached. */
  openStream(bidi: boolean): OpenResult {
    if (this.closed) return { ok: false, reason: "closed" };
    const stream = this.streams.open(bidi);
    if (stream === undefined) {
      const limit = this.streams.localLimit[bidi ? 0 : 1];
      this.refused[bidi ? 0 : 1] = true;
      if (this.wire.flowControl && limit.shouldReportBlocked()) {
        this.emitFrame({ type: "streams-blocked", bidi, limit: limit.max });
      }
      return { ok: false, reason: "stream-limit" };
    }
    return { ok: true, streamId: stream.id };
  }

  /**
   * Queues bytes (and optionally FIN) on a stream's sending side and sends what
   * the peer's credit allows. The framing keeps a view of `bytes`; do not reuse it.
   */
  write(streamId: StreamId, bytes: Uint8Array, fin = false): WriteResult {
    if (this.closed) return { ok: false, reason: "closed" };
    const stream = this.streams.live.get(streamId);
    if (stream === undefined) return { ok: false, reason: "unknown-stream" };
    const send = stream.send;
    if (send === undefined || send.done || send.finQueued) return { ok: false, reason: "not-writable" };
    const { accepted, buffered } = this.sender.write(stream, send, bytes, fin);
    return { ok: true, accepted, buffered };
  }

  /** Abandons our sending side (RESET_STREAM); queued bytes are dropped. */
  reset(streamId: StreamId, code: number): boolean {
    const stream = this.streams.live.get(streamId);
    const send = stream?.send;
    if (this.closed || stream === undefined || send === undefined || send.done) return false;
    this.sender.reset(stream, send, code);
    return true;
  }

  /** Asks the peer to stop sending (STOP_SENDING); later data is discarded and credited. */
  stopSending(streamId: StreamId, code: number): boolean {
    const stream = this.streams.live.get(streamId);
    const recv = stream?.recv;
    if (this.closed || stream === undefined || recv === undefined || recv.done || recv.stopped) return false;
    recv.stopped = true;
    this.emitFrame({ type: "stop-sending", id: streamId, code });
    return true;
  }

  /**
   * Releases `n` received bytes of a stream (the application has taken them),
   * which extends the peer's credit. Call it for every delivered byte unless
   * `autoConsume` is set; bytes of streams that are already gone still count for
   * the connection window.
   */
  consume(streamId: StreamId, n: number): void {
    if (this.closed || !this.wire.flowControl || n <= 0) return;
    const recv = this.streams.live.get(streamId)?.recv;
    if (recv !== undefined && !recv.done) {
      const max = recv.window.consume(n);
      if (max !== undefined) this.emitFrame({ type: "max-stream-data", id: streamId, max });
    }
    const max = this.connRecv.consume(n);
    if (max !== undefined) this.emitFrame({ type: "max-data", max });
  }

  /** Closes the connection with an application code (APPLICATION_CLOSE). */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.emitFrame({ type: "application-close", code, reason });
    this.finish(code, reason, false, false);
  }

  /** A method, so the compiler does not assume `closed` unchanged across frame handlers. */
  private hasClosed(): boolean {
    return this.closed;
  }

  // --- inbound frames ---

  private onFrame(frame: Frame): FramingError | undefined {
    if (this.wire.flowControl && this.peer === undefined) {
      // qmux: QX_TRANSPORT_PARAMETERS comes first (PADDING and a refusal aside).
      const early = frame.type === "padding" || frame.type === "transport-parameters" || isClose(frame);
      if (!early) return violation(`${frame.type} before transport parameters`);
    }
    switch (frame.type) {
      case "padding":
      case "data-blocked":
      case "streams-blocked":
        return undefined;
      case "transport-parameters":
        return this.onParams(frame.params);
      case "stream":
        return this.onStream(frame.id, frame.offset, frame.data, frame.fin);
      case "reset-stream":
        return this.onReset(frame.id, frame.code, frame.finalSize);
      case "stop-sending":
        return this.onStopSending(frame.id, frame.code);
      case "connection-close":
        this.finish(frame.code, frame.reason, true, true);
        return undefined;
      case "application-close":
        this.finish(frame.code, frame.reason, true, false);
        return undefined;
      case "max-data":
        if (this.sender.conn.raise(frame.max)) this.sender.flush();
        return undefined;
      case "max-stream-data": {
        const { stream, opened } = this.streams.lookup(frame.id, "send");
        if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
        if (opened) this.announce(stream);
        if (stream.send?.credit.raise(frame.max) === true) this.sender.flush();
        return undefined;
      }
      case "max-streams": {
        const kind = frame.bidi ? 0 : 1;
        if (this.streams.localLimit[kind].raise(frame.max) && this.refused[kind] === true) {
          this.refused[kind] = false;
          this.events.push({ kind: "streams-available", bidi: frame.bidi });
        }
        return undefined;
      }
      case "stream-data-blocked": {
        const { stream, opened } = this.streams.lookup(frame.id, "recv");
        if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
        if (opened) this.announce(stream);
        return undefined;
      }
      case "datagram":
        return violation("DATAGRAM received but max_datagram_frame_size was not advertised");
      default:
        return assertNever(frame);
    }
  }

  private onParams(params: TransportParams): FramingError | undefined {
    if (this.peer !== undefined) return violation("second QX_TRANSPORT_PARAMETERS");
    this.peer = params;
    this.sender.conn.raise(params.initialMaxData);
    this.streams.localLimit[0].raise(params.initialMaxStreamsBidi);
    this.streams.localLimit[1].raise(params.initialMaxStreamsUni);
    this.events.push({ kind: "ready" });
    return undefined;
  }

  private onStream(id: StreamId, offset: number | undefined, data: Uint8Array, fin: boolean): FramingError | undefined {
    const { stream, opened } = this.streams.lookup(id, "recv");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.announce(stream);
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
    if (!this.connRecv.receiveTo(this.connRecv.received + data.length)) return flowError("beyond MAX_DATA");
    if (recv.done) return undefined;
    if (fin) recv.finalSize = end;
    if (recv.stopped) {
      this.releaseConnection(data.length);
      if (fin) this.closeRecv(stream);
      return undefined;
    }
    if (data.length > 0 || fin) {
      this.events.push({ kind: "stream-data", streamId: id, bytes: data, fin });
      if (this.autoConsume) this.consume(id, data.length);
    }
    if (fin) this.closeRecv(stream);
    return undefined;
  }

  private onReset(id: StreamId, code: number, claimedFinalSize: number): FramingError | undefined {
    const { stream, opened } = this.streams.lookup(id, "recv");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.announce(stream);
    const recv = stream.recv;
    if (recv === undefined) return undefined;
    const received = recv.window.received;
    // The reference takes max(final size, received): @moq/qmux 0.0.6 always sends 0.
    const finalSize = Math.max(claimedFinalSize, received);
    if (recv.finalSize !== undefined && finalSize !== recv.finalSize) {
      return new FramingError(TransportError.FINAL_SIZE_ERROR, `stream ${id}: reset changes the final size`);
    }
    if (!recv.window.receiveTo(finalSize)) return flowError(`stream ${id}: final size beyond MAX_STREAM_DATA`);
    const gap = finalSize - received;
    if (!this.connRecv.receiveTo(this.connRecv.received + gap)) return flowError("final size beyond MAX_DATA");
    // Bytes that will never arrive cannot be consumed by anyone: release them now.
    this.releaseConnection(gap);
    if (recv.done) return undefined;
    recv.finalSize = finalSize;
    recv.resetByPeer = true;
    if (!recv.stopped) this.events.push({ kind: "stream-reset", streamId: id, code });
    this.closeRecv(stream);
    return undefined;
  }

  private onStopSending(id: StreamId, code: number): FramingError | undefined {
    const { stream, opened } = this.streams.lookup(id, "send");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.announce(stream);
    const send = stream.send;
    if (send === undefined || send.done) return undefined;
    // RFC 9000 §3.5: answer with RESET_STREAM; we do it here, as both references do.
    this.events.push({ kind: "stop-sending", streamId: id, code });
    this.sender.reset(stream, send, code);
    return undefined;
  }

  // --- helpers ---

  private announce(stream: StreamState): void {
    this.events.push({ kind: "stream-opened", streamId: stream.id, bidi: stream.bidi });
  }

  private closeRecv(stream: StreamState): void {
    if (stream.recv !== undefined) stream.recv.done = true;
    this.retire(stream);
  }

  private retire(stream: StreamState): void {
    const max = this.streams.retireIfDone(stream);
    if (max !== undefined && this.wire.flowControl) this.emitFrame({ type: "max-streams", bidi: stream.bidi, max });
  }

  private releaseConnection(n: number): void {
    if (!this.wire.flowControl || n <= 0) return;
    const max = this.connRecv.consume(n);
    if (max !== undefined) this.emitFrame({ type: "max-data", max });
  }

  private emitFrame(frame: Frame): void {
    const bytes = this.wire.encode(frame);
    if (bytes !== undefined) this.events.push({ kind: "send", bytes });
  }

  private fail(error: FramingError): void {
    if (this.closed) return;
    this.emitFrame({ type: "connection-close", code: error.code, frameType: 0, reason: error.message });
    this.finish(error.code, error.message, false, true);
  }

  private finish(code: number, reason: string, byPeer: boolean, transport: boolean): void {
    this.closed = true;
    this.sender.dropAll(this.streams.live.values());
    this.streams.live.clear();
    this.events.push({ kind: "closed", code, reason, byPeer, transport });
  }
}

function effectiveIdle(ours: number, peer: number): number {
  if (ours === 0) return peer;
  if (peer === 0) return ours;
  return Math.min(ours, peer);
}

function isClose(frame: Frame): boolean {
  return frame.type === "connection-close" || frame.type === "application-close";
}

function violation(why: string): FramingError {
  return new FramingError(TransportError.PROTOCOL_VIOLATION, why);
}

function flowError(why: string): FramingError {
  return new FramingError(TransportError.FLOW_CONTROL_ERROR, why);
}

function asError(stream: "ignore" | FramingError): FramingError | undefined {
  return stream === "ignore" ? undefined : stream;
}

function assertNever(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
