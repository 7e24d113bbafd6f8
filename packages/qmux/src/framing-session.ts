import { asError, FramingError, TransportError, violation } from "./errors.js";
import type { FramingEvent, FramingKind, FramingOptions, OpenResult, QmuxVersion, WriteResult } from "./events.js";
import { RecvWindow } from "./flow.js";
import { EventQueue } from "./event-queue.js";
import { Liveness } from "./liveness.js";
import { RecvPath } from "./recv-path.js";
import { SendScheduler } from "./send-scheduler.js";
import type { Frame } from "./frame.js";
import type { StreamId } from "./stream-id.js";
import { legacyStreamTable, qmuxStreamTable, type StreamState, type StreamTable } from "./stream-table.js";
import { MIN_RECORD_SIZE, REFERENCE_PARAMS, type TransportParams } from "./transport-params.js";
import { varintSize } from "./varint.js";
import type { Wire } from "./wire.js";
import { wireFor } from "./wire-for.js";

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
  readonly #events: EventQueue;
  readonly #streams: StreamTable;
  readonly #ours: TransportParams;
  #peer: TransportParams | undefined;
  readonly #sender: SendScheduler;
  readonly #connRecv: RecvWindow;
  readonly #autoConsume: boolean;
  readonly #server: boolean;
  readonly #refused = [false, false];
  readonly #records: boolean;
  readonly #liveness: Liveness;
  readonly #recvPath: RecvPath;
  #closed = false;
  readonly #wire: Wire;
  #version: QmuxVersion | undefined;
  /** qmux-02 until the peer's parameters say it is a qmux-01 end ({@link FramingOptions.matchPeerVersion}). */
  readonly #matchPeer: boolean;

  /**
   * Starts a connection of framing `kind` over `options.carrier` (see {@link createFraming});
   * qmux queues our transport parameters at once.
   */
  constructor(kind: FramingKind, options: FramingOptions) {
    const wire = wireFor(kind, options);
    this.#wire = wire;
    this.#events = new EventQueue(wire.recordBytes);
    this.#version = wire.version;
    this.#matchPeer = options.matchPeerVersion === true && wire.version === "qmux-02";
    this.#records = wire.version === "qmux-01" || wire.version === "qmux-02";
    this.#liveness = new Liveness(wire.version === "qmux-02", options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS);
    // Datagrams need the record layer (qmux-01+); RESET_STREAM_AT is qmux-02's.
    this.#ours = {
      ...REFERENCE_PARAMS,
      maxDatagramFrameSize: this.#records ? REFERENCE_PARAMS.maxRecordSize : 0,
      resetStreamAt: wire.version === "qmux-02",
      ...options.params,
    };
    this.#sender = new SendScheduler(
      wire.flowControl,
      {
        maxStreamBuffer: options.maxStreamBuffer ?? DEFAULT_STREAM_BUFFER,
        maxConnectionBuffer: options.maxConnectionBuffer ?? DEFAULT_CONNECTION_BUFFER,
      },
      {
        frame: (frame) => { this.#emitFrame(frame); },
        event: (event) => { this.#events.push(event); },
        finished: (stream) => {
          this.#retire(stream);
        },
      },
    );
    this.#autoConsume = options.autoConsume ?? false;
    const server = options.role === "server";
    this.#server = server;
    if (wire.flowControl) {
      this.#connRecv = new RecvWindow(this.#ours.initialMaxData);
      this.#streams = qmuxStreamTable(server, this.#ours, () => this.#peer);
      this.#emitFrame({ type: "transport-parameters", params: this.#ours });
    } else {
      this.#connRecv = new RecvWindow(Infinity);
      this.#streams = legacyStreamTable(server, options.maxPeerStreams ?? DEFAULT_LEGACY_PEER_STREAMS);
      this.#events.push({ kind: "ready" });
    }
    this.#recvPath = new RecvPath({
      streams: this.#streams,
      connRecv: this.#connRecv,
      events: this.#events,
      autoConsume: this.#autoConsume,
      announce: (stream) => {
        this.#announce(stream);
      },
      closeRecv: (stream) => {
        this.#closeRecv(stream);
      },
      releaseConnection: (n) => {
        this.#releaseConnection(n);
      },
      consume: (streamId, n) => {
        this.consume(streamId, n);
      },
    });
  }

  /** The peer's transport parameters, once received (qmux only). */
  get peerParams(): TransportParams | undefined {
    return this.#peer;
  }

  /**
   * The application protocol agreed in-band through the qmux application_protocols
   * parameter (plain TCP has no ALPN): the first of the server's list the client
   * also offered, as in the reference. Undefined until both lists are known, when
   * we offered none, or when they do not overlap.
   */
  get applicationProtocol(): string | undefined {
    const peer = this.#peer?.applicationProtocols ?? [];
    const ours = this.#ours.applicationProtocols;
    const [server, client] = this.#server ? [ours, peer] : [peer, ours];
    return server.find((p) => client.includes(p));
  }

  /** The qmux version on the wire (undefined on the legacy framing). */
  get version(): QmuxVersion | undefined {
    return this.#version;
  }

  /**
   * The largest datagram payload the peer accepts (0 = none: qmux-00, the legacy
   * framing, a peer that advertised no max_datagram_frame_size, or no parameters yet).
   */
  get maxDatagramPayload(): number {
    const peer = this.#peer;
    if (!this.#records || peer === undefined || peer.maxDatagramFrameSize === 0) return 0;
    const cap = Math.min(peer.maxDatagramFrameSize, peer.maxRecordSize === 0 ? MIN_RECORD_SIZE : peer.maxRecordSize);
    return Math.max(0, cap - 1 - varintSize(cap));
  }

  /** Sends one DATAGRAM frame; false (nothing sent) when the peer takes none this size. */
  sendDatagram(bytes: Uint8Array): boolean {
    if (this.#closed || bytes.length > this.maxDatagramPayload) return false;
    this.#emitFrame({ type: "datagram", data: bytes });
    return true;
  }

  /** True once the connection is closed (by either side, or a timeout). */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Outbound bytes queued on all streams, waiting for the peer's credit. */
  get bufferedBytes(): number {
    return this.#sender.buffered;
  }

  /** Number of streams not yet fully closed. */
  get liveStreams(): number {
    return this.#streams.live.size;
  }

  /** Drains the events produced since the last call, in order (the list is handed over, not copied). */
  poll(): readonly FramingEvent[] {
    return this.#events.poll();
  }

  /**
   * Feeds one inbound WebSocket message (or the next byte-stream chunk). Never
   * throws: a violation closes the connection with its QUIC error code. The
   * framing keeps views into `data`; do not reuse the buffer.
   */
  receive(data: Uint8Array): void {
    if (this.#closed) return;
    this.#liveness.heard();
    try {
      const { frames, error } = this.#wire.push(data);
      for (const frame of frames) {
        const violation = this.#onFrame(frame);
        if (violation !== undefined) {
          this.#fail(violation);
          return;
        }
        if (this.#hasClosed()) return;
      }
      if (error !== undefined) this.#fail(error);
    } catch (cause) {
      // A bug, not peer input; fail closed rather than leave a half-applied state.
      this.#fail(new FramingError(TransportError.INTERNAL_ERROR, `internal error: ${String(cause)}`));
    }
  }

  /** Notes liveness seen outside the framing (e.g. a WebSocket pong) for the idle timeout. */
  touch(): void {
    this.#liveness.heard();
  }

  /**
   * Advances time to `nowMs` (any monotonic clock): closes the connection after
   * the handshake timeout without the peer's parameters, or after the effective
   * idle timeout (the smaller non-zero max_idle_timeout, RFC 9000 §10.1) with no
   * inbound activity. Both close silently, as QUIC does.
   */
  tick(nowMs: number): void {
    if (this.#closed) return;
    const handshaking = this.#wire.flowControl && this.#peer === undefined;
    const due = this.#liveness.due(nowMs, handshaking, this.#ours.maxIdleTimeout, this.#peer?.maxIdleTimeout ?? 0, this.#records);
    if (due?.kind === "close") this.#finish(TransportError.NO_ERROR, due.reason, false, true);
    else if (due?.kind === "ping") this.#emitFrame({ type: "ping", response: false, sequence: due.sequence });
  }

  /** Opens a stream of ours, or refuses when the peer's stream limit is reached. */
  openStream(bidi: boolean): OpenResult {
    if (this.#closed) return { ok: false, reason: "closed" };
    const stream = this.#streams.open(bidi);
    if (stream === undefined) {
      const limit = this.#streams.localLimit[bidi ? 0 : 1];
      this.#refused[bidi ? 0 : 1] = true;
      if (this.#wire.flowControl && limit.shouldReportBlocked()) {
        this.#emitFrame({ type: "streams-blocked", bidi, limit: limit.max });
      }
      return { ok: false, reason: "stream-limit" };
    }
    return { ok: true, streamId: stream.id };
  }

  /**
   * Queues bytes (and optionally FIN) on a stream's sending side and sends what
   * the peer's credit allows. The framing keeps a view of `bytes`; do not reuse it.
   * `bytes` may be a list of parts, taken as their concatenation without joining
   * them (a header and payloads shared with other streams); `accepted` counts bytes.
   */
  write(streamId: StreamId, bytes: Uint8Array | readonly Uint8Array[], fin = false): WriteResult {
    if (this.#closed) return { ok: false, reason: "closed" };
    const stream = this.#streams.live.get(streamId);
    if (stream === undefined) return { ok: false, reason: "unknown-stream" };
    const send = stream.send;
    if (send === undefined || send.done || send.finQueued) return { ok: false, reason: "not-writable" };
    const accepted = this.#sender.write(stream, send, bytes, fin);
    return { ok: true, accepted, buffered: send.queued };
  }

  /** Abandons our sending side (RESET_STREAM); queued bytes are dropped. */
  reset(streamId: StreamId, code: number): boolean {
    const stream = this.#streams.live.get(streamId);
    const send = stream?.send;
    if (this.#closed || stream === undefined || send === undefined || send.done) return false;
    this.#sender.reset(stream, send, code);
    return true;
  }

  /** Asks the peer to stop sending (STOP_SENDING); later data is discarded and credited. */
  stopSending(streamId: StreamId, code: number): boolean {
    const stream = this.#streams.live.get(streamId);
    const recv = stream?.recv;
    if (this.#closed || stream === undefined || recv === undefined || recv.done || recv.stopped) return false;
    recv.stopped = true;
    this.#emitFrame({ type: "stop-sending", id: streamId, code });
    return true;
  }

  /**
   * Releases `n` received bytes of a stream (the application has taken them),
   * which extends the peer's credit. Call it for every delivered byte unless
   * `autoConsume` is set; bytes of streams that are already gone still count for
   * the connection window.
   */
  consume(streamId: StreamId, n: number): void {
    if (this.#closed || !this.#wire.flowControl || n <= 0) return;
    const recv = this.#streams.live.get(streamId)?.recv;
    if (recv !== undefined && !recv.done) {
      const max = recv.window.consume(n);
      if (max !== undefined) this.#emitFrame({ type: "max-stream-data", id: streamId, max });
    }
    const max = this.#connRecv.consume(n);
    if (max !== undefined) this.#emitFrame({ type: "max-data", max });
  }

  /** Closes the connection with an application code (APPLICATION_CLOSE). */
  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#emitFrame({ type: "application-close", code, reason });
    this.#finish(code, reason, false, false);
  }

  /** A method, so the compiler does not assume `closed` unchanged across frame handlers. */
  #hasClosed(): boolean {
    return this.#closed;
  }

  // --- inbound frames ---

  #onFrame(frame: Frame): FramingError | undefined {
    if (this.#wire.flowControl && this.#peer === undefined) {
      // qmux: QX_TRANSPORT_PARAMETERS comes first (PADDING aside); qmux-00 and -01
      // also take a refusal first, qmux-02 makes it strictly the first frame (a peer that may
      // be a qmux-01 end is given the benefit of the doubt).
      const refusal = isClose(frame) && (this.#version !== "qmux-02" || this.#matchPeer);
      const early = frame.type === "padding" || frame.type === "transport-parameters" || refusal;
      if (!early) return violation(`${frame.type} before transport parameters`);
    }
    switch (frame.type) {
      case "padding":
      case "data-blocked":
      case "streams-blocked":
        return undefined;
      case "transport-parameters":
        return this.#onParams(frame.params);
      case "stream":
        return this.#recvPath.onStream(frame.id, frame.offset, frame.data, frame.fin);
      case "reset-stream":
        return this.#recvPath.onReset(frame.id, frame.code, frame.finalSize);
      case "stop-sending":
        return this.#onStopSending(frame.id, frame.code);
      case "connection-close":
        this.#finish(frame.code, frame.reason, true, true);
        return undefined;
      case "application-close":
        this.#finish(frame.code, frame.reason, true, false);
        return undefined;
      case "max-data":
        if (this.#sender.conn.raise(frame.max)) this.#sender.flush();
        return undefined;
      case "max-stream-data": {
        const { stream, opened } = this.#streams.lookup(frame.id, "send");
        if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
        if (opened) this.#announce(stream);
        if (stream.send?.credit.raise(frame.max) === true) this.#sender.flush();
        return undefined;
      }
      case "max-streams": {
        const kind = frame.bidi ? 0 : 1;
        if (this.#streams.localLimit[kind].raise(frame.max) && this.#refused[kind] === true) {
          this.#refused[kind] = false;
          this.#events.push({ kind: "streams-available", bidi: frame.bidi });
        }
        return undefined;
      }
      case "stream-data-blocked": {
        const { stream, opened } = this.#streams.lookup(frame.id, "recv");
        if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
        if (opened) this.#announce(stream);
        return undefined;
      }
      case "datagram":
        if (this.#ours.maxDatagramFrameSize === 0) return violation("DATAGRAM received but max_datagram_frame_size was not advertised");
        if (frame.data.length + 1 > this.#ours.maxDatagramFrameSize) return violation("DATAGRAM above max_datagram_frame_size");
        this.#events.push({ kind: "datagram", bytes: frame.data });
        return undefined;
      case "ping": {
        if (!this.#records) return new FramingError(TransportError.FRAME_ENCODING_ERROR, "QX_PING before qmux-01");
        const wrong = frame.response ? this.#liveness.pinger.onResponse(frame.sequence) : this.#liveness.pinger.onRequest(frame.sequence);
        if (wrong !== undefined) return violation(wrong);
        if (!frame.response) this.#emitFrame({ type: "ping", response: true, sequence: frame.sequence });
        return undefined;
      }
      case "reset-stream-at":
        if (!this.#ours.resetStreamAt) return violation("RESET_STREAM_AT received but reset_stream_at was not advertised");
        return this.#recvPath.onResetAt(frame.id, frame.code, frame.finalSize, frame.reliableSize);
      default:
        return assertNever(frame);
    }
  }

  #onParams(params: TransportParams): FramingError | undefined {
    if (this.#peer !== undefined) return violation("second QX_TRANSPORT_PARAMETERS");
    // An omitted max_record_size means the default; an explicit smaller one is invalid.
    if (this.#records && params.maxRecordSize !== 0 && params.maxRecordSize < MIN_RECORD_SIZE) {
      return new FramingError(TransportError.TRANSPORT_PARAMETER_ERROR, `max_record_size below ${String(MIN_RECORD_SIZE)}`);
    }
    this.#peer = params;
    if (this.#matchPeer && !params.resetStreamAt) {
      // Only qmux-02 ends advertise reset_stream_at: this peer runs qmux-01.
      this.#version = "qmux-01";
      this.#liveness.pinger.relax();
    }
    this.#sender.conn.raise(params.initialMaxData);
    this.#streams.localLimit[0].raise(params.initialMaxStreamsBidi);
    this.#streams.localLimit[1].raise(params.initialMaxStreamsUni);
    this.#events.push({ kind: "ready" });
    return undefined;
  }

  #onStopSending(id: StreamId, code: number): FramingError | undefined {
    const { stream, opened } = this.#streams.lookup(id, "send");
    if (typeof stream === "string" || stream instanceof FramingError) return asError(stream);
    if (opened) this.#announce(stream);
    const send = stream.send;
    if (send === undefined || send.done) return undefined;
    // RFC 9000 §3.5: answer with RESET_STREAM; we do it here, as both references do.
    this.#events.push({ kind: "stop-sending", streamId: id, code });
    this.#sender.reset(stream, send, code);
    return undefined;
  }

  // --- helpers ---

  #announce(stream: StreamState): void {
    this.#events.push({ kind: "stream-opened", streamId: stream.id, bidi: stream.bidi });
  }

  #closeRecv(stream: StreamState): void {
    if (stream.recv !== undefined) stream.recv.done = true;
    this.#retire(stream);
  }

  #retire(stream: StreamState): void {
    const max = this.#streams.retireIfDone(stream);
    if (max !== undefined && this.#wire.flowControl) this.#emitFrame({ type: "max-streams", bidi: stream.bidi, max });
  }

  #releaseConnection(n: number): void {
    if (!this.#wire.flowControl || n <= 0) return;
    const max = this.#connRecv.consume(n);
    if (max !== undefined) this.#emitFrame({ type: "max-data", max });
  }

  #emitFrame(frame: Frame): void {
    const bytes = this.#wire.encode(frame);
    if (bytes !== undefined) this.#events.push({ kind: "send", bytes });
  }

  #fail(error: FramingError): void {
    if (this.#closed) return;
    this.#emitFrame({ type: "connection-close", code: error.code, frameType: 0, reason: error.message });
    this.#finish(error.code, error.message, false, true);
  }

  #finish(code: number, reason: string, byPeer: boolean, transport: boolean): void {
    this.#closed = true;
    this.#sender.dropAll(this.#streams.live.values());
    this.#streams.live.clear();
    this.#events.push({ kind: "closed", code, reason, byPeer, transport });
  }
}

function isClose(frame: Frame): boolean {
  return frame.type === "connection-close" || frame.type === "application-close";
}

function assertNever(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
