import type { StreamId } from "./stream-id.js";
import type { TransportParams } from "./transport-params.js";

/** Which end of the connection this framing instance is. */
export type Role = "server" | "client";

/** A qmux wire version: 00 (one frame per message), 01 (records, QX_PING, datagrams), 02 (01 plus RESET_STREAM_AT and stricter first-frame and ping rules). */
export type QmuxVersion = "qmux-00" | "qmux-01" | "qmux-02";

/** Which framing the WebSocket subprotocol (or the TCP listener) selected. */
export type FramingKind = QmuxVersion | "webtransport";

/** How framing units travel: WebSocket messages, or a byte stream (TCP/TLS/Unix). */
export type Carrier = "message" | "stream";

/** Options of one framing instance. */
export interface FramingOptions {
  /** Our end of the connection; decides stream id parity. */
  readonly role: Role;
  /** Default "message" (WebSocket). "stream" is qmux only. */
  readonly carrier?: Carrier;
  /** What we advertise (qmux-00); unset fields take the reference defaults. */
  readonly params?: Partial<TransportParams>;
  /** Outbound bytes one stream may queue beyond the peer's credit (default 1 MiB). */
  readonly maxStreamBuffer?: number;
  /** Outbound bytes all streams together may queue (default 8 MiB). */
  readonly maxConnectionBuffer?: number;
  /** Release receive credit as soon as data is delivered, instead of on `consume` (default false). */
  readonly autoConsume?: boolean;
  /** Legacy framing only (it has no MAX_STREAMS): peer streams per kind that may be open at once (default 1000). */
  readonly maxPeerStreams?: number;
  /** qmux: how long `tick` waits for the peer's transport parameters (default 10 s, 0 = forever). */
  readonly handshakeTimeoutMs?: number;
  /**
   * qmux-02 on a carrier that did not name the version (plain TCP, where qmux-01 and -02 share
   * the record wire): run qmux-01 unless the peer's transport parameters include
   * reset_stream_at, which only qmux-02 ends send; `version` reports the outcome once they are
   * in. Default false: the subprotocol or ALPN fixed the version.
   */
  readonly matchPeerVersion?: boolean;
  /** Largest inbound WebSocket message (default 16384 for qmux-00, our max_record_size for 01/02, 65536 for the legacy framing). */
  readonly maxMessageSize?: number;
}

/** Something the framing tells its owner; drained with `poll()`. */
export type FramingEvent =
  /** Bytes to put on the wire: one WebSocket binary message, or a chunk for the byte stream. */
  | { readonly kind: "send"; readonly bytes: Uint8Array }
  /** The peer's transport parameters arrived (qmux), or the legacy framing started: streams may be opened. */
  | { readonly kind: "ready" }
  /** The peer opened a stream. */
  | { readonly kind: "stream-opened"; readonly streamId: StreamId; readonly bidi: boolean }
  /** Bytes (possibly empty when only `fin`) on a stream's receive side, in order. */
  | { readonly kind: "stream-data"; readonly streamId: StreamId; readonly bytes: Uint8Array; readonly fin: boolean }
  /** The peer abandoned its sending side (RESET_STREAM). */
  | { readonly kind: "stream-reset"; readonly streamId: StreamId; readonly code: number }
  /** A DATAGRAM frame's payload (qmux-01/02 only; unreliable, unordered with streams). */
  | { readonly kind: "datagram"; readonly bytes: Uint8Array }
  /** The peer asked us to stop sending; we already answered with RESET_STREAM carrying the same code. */
  | { readonly kind: "stop-sending"; readonly streamId: StreamId; readonly code: number }
  /** A stream whose write was cut short has room again. */
  | { readonly kind: "writable"; readonly streamId: StreamId }
  /** The peer raised its stream limit after `openStream` was refused. */
  | { readonly kind: "streams-available"; readonly bidi: boolean }
  /**
   * The connection is over; the owner closes the socket after sending what is
   * pending. `transport` means a transport-level close (a QUIC error code, an idle
   * or handshake timeout) rather than an application close.
   */
  | {
      readonly kind: "closed";
      readonly code: number;
      readonly reason: string;
      readonly byPeer: boolean;
      readonly transport: boolean;
    };

/** Result of `openStream`. */
export type OpenResult =
  | { readonly ok: true; readonly streamId: StreamId }
  | { readonly ok: false; readonly reason: "stream-limit" | "closed" };

/**
 * Result of `write`. `accepted` may be less than the bytes given: the rest did not
 * fit in the buffer caps; retry it after a "writable" event. FIN is applied only
 * when everything was accepted. `buffered` is what waits for the peer's credit.
 */
export type WriteResult =
  | { readonly ok: true; readonly accepted: number; readonly buffered: number }
  | { readonly ok: false; readonly reason: "closed" | "unknown-stream" | "not-writable" };
