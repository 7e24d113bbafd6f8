import { FramingError, TransportError } from "./errors.js";
import { RecvWindow, SendCredit } from "./flow.js";
import type { TransportParams } from "./transport-params.js";
import { isBidi, isServerInitiated, makeStreamId, streamIndex, type StreamId } from "./stream-id.js";

/** Our sending side of a stream. */
export interface SendHalf {
  /** Bytes already framed and sent (the next offset). */
  offset: number;
  /** Accepted bytes waiting for credit, in order. */
  readonly queue: Uint8Array[];
  /** Total bytes in `queue`. */
  queued: number;
  /** The application finished the stream; FIN goes out after the queue. */
  finQueued: boolean;
  /** Terminal: FIN sent or RESET_STREAM sent. */
  done: boolean;
  /** The peer's limit for this stream (unlimited on the legacy framing). */
  readonly credit: SendCredit;
  /** A write was cut short; report "writable" once there is room. */
  wantWritable: boolean;
  /** In the scheduler's list of streams with something to send (that list's membership). */
  pending: boolean;
}

/** Our receiving side of a stream. */
export interface RecvHalf {
  /** Our limit for this stream; `received` is the next expected offset. */
  readonly window: RecvWindow;
  /** Set once FIN (or a reset) fixes the final size. */
  finalSize: number | undefined;
  /** Terminal: FIN delivered or reset received. */
  done: boolean;
  /** We sent STOP_SENDING: later data is discarded and its credit released. */
  stopped: boolean;
  /** The peer reset this side: later data is ignored (see the session). */
  resetByPeer: boolean;
  /** qmux-02 RESET_STREAM_AT received before its reliable bytes: reset once they are in. */
  resetAt: { readonly code: number; readonly finalSize: number; readonly reliableSize: number } | undefined;
}

/** One live stream. */
export interface StreamState {
  readonly id: StreamId;
  readonly bidi: boolean;
  readonly local: boolean;
  readonly send: SendHalf | undefined;
  readonly recv: RecvHalf | undefined;
}

/** Windows a new stream starts with, by who opened it and its kind. */
export interface StreamWindows {
  /** Our receive window for a stream, given whether we opened it. */
  recvWindow(bidi: boolean, local: boolean): number;
  /** The peer's initial credit for a stream, given whether we opened it. */
  sendCredit(bidi: boolean, local: boolean): number;
}

/** Result of looking a frame's stream up. */
export type Lookup = StreamState | "ignore" | FramingError;

/**
 * The streams of one connection: live state, id allocation, and the QUIC rules on
 * which ids a peer may use (RFC 9000 §2.1, §3, §4.6). Ids below the highest one
 * seen that were never used are "implicitly opened" and tracked until used, which
 * the stream limit bounds.
 */
export class StreamTable {
  /** Live streams, in creation order (the send scheduler walks this). */
  readonly live = new Map<StreamId, StreamState>();
  /** The limits we grant the peer on opening streams, bidi then uni. */
  readonly peerLimit: readonly [RecvWindow, RecvWindow];
  /** The peer's limits on our opening streams, bidi then uni. */
  readonly localLimit: readonly [SendCredit, SendCredit];
  readonly #peerOpened = [0, 0];
  readonly #implicit = [new Set<number>(), new Set<number>()];
  readonly #server: boolean;
  readonly #windows: StreamWindows;

  /**
   * An empty table for `server` (or client), with the given initial limits on peer
   * streams; `eagerPeerLimit` when the peer is never told them (legacy framing).
   */
  constructor(
    server: boolean,
    peerBidi: number,
    peerUni: number,
    windows: StreamWindows,
    eagerPeerLimit = false,
  ) {
    this.#server = server;
    this.#windows = windows;
    this.peerLimit = [new RecvWindow(peerBidi, eagerPeerLimit), new RecvWindow(peerUni, eagerPeerLimit)];
    this.localLimit = [new SendCredit(0), new SendCredit(0)];
  }

  /** Opens our next stream of a kind, or undefined if the peer's limit is reached. */
  open(bidi: boolean): StreamState | undefined {
    const credit = this.localLimit[bidi ? 0 : 1];
    if (credit.available < 1) return undefined;
    const id = makeStreamId(credit.used, bidi, this.#server);
    credit.used += 1;
    return this.#create(id, bidi, true);
  }

  /**
   * Finds the stream a peer frame refers to, opening it if the peer may. `side` is
   * the side of *ours* the frame acts on: "recv" for STREAM, RESET_STREAM and
   * STREAM_DATA_BLOCKED; "send" for STOP_SENDING and MAX_STREAM_DATA.
   * "ignore" means a stream that was already retired (a late frame).
   */
  lookup(id: StreamId, side: "recv" | "send"): { stream: Lookup; opened: boolean } {
    const bidi = isBidi(id);
    const local = isServerInitiated(id) === this.#server;
    if (!bidi && local === (side === "recv")) {
      const what = side === "recv" ? "receive on our send-only" : "send on the peer's receive-only";
      return { stream: stateError(`frame to ${what} stream ${id}`), opened: false };
    }
    const live = this.live.get(id);
    if (live !== undefined) return { stream: live, opened: false };
    const kind = bidi ? 0 : 1;
    const index = streamIndex(id);
    if (local) {
      const used = this.localLimit[kind].used;
      return { stream: index < used ? "ignore" : stateError(`stream ${id} not opened yet`), opened: false };
    }
    const opened = this.#peerOpened[kind] ?? 0;
    const implicit = this.#implicit[kind];
    if (implicit === undefined) return { stream: "ignore", opened: false };
    if (index < opened && !implicit.has(index)) return { stream: "ignore", opened: false };
    if (!this.peerLimit[kind].receiveTo(index + 1)) {
      return { stream: new FramingError(TransportError.STREAM_LIMIT_ERROR, `stream ${id} beyond the limit`), opened: false };
    }
    for (let i = opened; i < index; i++) implicit.add(i);
    implicit.delete(index);
    this.#peerOpened[kind] = Math.max(opened, index + 1);
    return { stream: this.#create(id, bidi, false), opened: true };
  }

  /**
   * Drops a stream once both its sides are terminal; returns a new MAX_STREAMS
   * limit to advertise when a peer stream's slot is released.
   */
  retireIfDone(stream: StreamState): number | undefined {
    if (stream.send?.done === false || stream.recv?.done === false) return undefined;
    if (!this.live.delete(stream.id) || stream.local) return undefined;
    return this.peerLimit[stream.bidi ? 0 : 1].consume(1);
  }

  #create(id: StreamId, bidi: boolean, local: boolean): StreamState {
    const hasSend = bidi || local;
    const hasRecv = bidi || !local;
    const stream: StreamState = {
      id,
      bidi,
      local,
      send: hasSend
        ? {
            offset: 0,
            queue: [],
            queued: 0,
            finQueued: false,
            done: false,
            credit: new SendCredit(this.#windows.sendCredit(bidi, local)),
            wantWritable: false,
            pending: false,
          }
        : undefined,
      recv: hasRecv
        ? {
            window: new RecvWindow(this.#windows.recvWindow(bidi, local)),
            finalSize: undefined,
            done: false,
            stopped: false,
            resetByPeer: false,
            resetAt: undefined,
          }
        : undefined,
    };
    this.live.set(id, stream);
    return stream;
  }
}

function stateError(why: string): FramingError {
  return new FramingError(TransportError.STREAM_STATE_ERROR, why);
}

/** The stream table of a qmux connection: windows from our parameters, credit from the peer's once known. */
export function qmuxStreamTable(server: boolean, ours: TransportParams, peer: () => TransportParams | undefined): StreamTable {
  return new StreamTable(server, ours.initialMaxStreamsBidi, ours.initialMaxStreamsUni, {
    recvWindow: (bidi, local) =>
      bidi ? (local ? ours.initialMaxStreamDataBidiLocal : ours.initialMaxStreamDataBidiRemote) : ours.initialMaxStreamDataUni,
    sendCredit: (bidi, local) => {
      const params = peer();
      if (params === undefined) return 0;
      return bidi ? (local ? params.initialMaxStreamDataBidiRemote : params.initialMaxStreamDataBidiLocal) : params.initialMaxStreamDataUni;
    },
  });
}

/** The stream table of the legacy framing: no flow control, `peerStreams` open at once per kind. */
export function legacyStreamTable(server: boolean, peerStreams: number): StreamTable {
  const table = new StreamTable(server, peerStreams, peerStreams, { recvWindow: () => Infinity, sendCredit: () => Infinity }, true);
  table.localLimit[0].raise(Infinity);
  table.localLimit[1].raise(Infinity);
  return table;
}
