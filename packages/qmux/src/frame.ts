import type { TransportParams } from "./transport-params.js";

/** The QUIC / qmux frames this layer speaks; one union for both framings. */
export type Frame =
  | { type: "padding" }
  | {
      type: "stream";
      id: number;
      offset: number | undefined;
      data: Uint8Array;
      fin: boolean;
      /**
       * Outbound only: the payload as consecutive parts (`data` is then empty), so that chunks
       * queued by separate writes go out in one frame without being joined first; the encoder
       * copies them once, into the wire unit.
       */
      parts?: readonly Uint8Array[];
    }
  | { type: "reset-stream"; id: number; code: number; finalSize: number }
  | { type: "stop-sending"; id: number; code: number }
  | { type: "connection-close"; code: number; frameType: number; reason: string }
  | { type: "application-close"; code: number; reason: string }
  | { type: "max-data"; max: number }
  | { type: "max-stream-data"; id: number; max: number }
  | { type: "max-streams"; bidi: boolean; max: number }
  | { type: "data-blocked"; limit: number }
  | { type: "stream-data-blocked"; id: number; limit: number }
  | { type: "streams-blocked"; bidi: boolean; limit: number }
  | { type: "datagram"; data: Uint8Array }
  | { type: "transport-parameters"; params: TransportParams }
  /** qmux-02 (draft-ietf-quic-reliable-stream-reset): a reset that still delivers the first `reliableSize` bytes. */
  | { type: "reset-stream-at"; id: number; code: number; finalSize: number; reliableSize: number }
  /** qmux-01+ QX_PING: a request the peer must answer with a response echoing `sequence`. */
  | { type: "ping"; response: boolean; sequence: number };

/** Frame type codes on the wire (QUIC v1 plus qmux-00's transport-parameters frame). */
export const FrameType = {
  PADDING: 0x00,
  RESET_STREAM: 0x04,
  STOP_SENDING: 0x05,
  STREAM: 0x08,
  STREAM_OFF: 0x04,
  STREAM_LEN: 0x02,
  STREAM_FIN: 0x01,
  MAX_DATA: 0x10,
  MAX_STREAM_DATA: 0x11,
  MAX_STREAMS_BIDI: 0x12,
  MAX_STREAMS_UNI: 0x13,
  DATA_BLOCKED: 0x14,
  STREAM_DATA_BLOCKED: 0x15,
  STREAMS_BLOCKED_BIDI: 0x16,
  STREAMS_BLOCKED_UNI: 0x17,
  CONNECTION_CLOSE: 0x1c,
  APPLICATION_CLOSE: 0x1d,
  DATAGRAM: 0x30,
  DATAGRAM_LEN: 0x31,
  RESET_STREAM_AT: 0x24,
} as const;

/** QX_TRANSPORT_PARAMETERS frame type (on the wire: ff 51 53 30 0d 0a 0d 0a; above 2^53, so a bigint). */
export const QX_TRANSPORT_PARAMETERS = 0x3f5153300d0a0d0an;

/** qmux-01 QX_PING request and response frame types (above 2^53, so bigints). */
export const QX_PING_REQUEST = 0x348c67529ef8c7bdn;
export const QX_PING_RESPONSE = 0x348c67529ef8c7ben;

/**
 * draft-00 `max_frame_size`: the largest frame (header included) a peer may send.
 * Both reference implementations enforce it on receive.
 */
export const MAX_FRAME_SIZE = 16384;

/**
 * Largest STREAM payload we put in one frame. @moq/qmux 0.0.6 closes the session
 * on a payload above 16360 bytes; the Rust reference sends at most 16352.
 */
export const MAX_STREAM_PAYLOAD = MAX_FRAME_SIZE - 32;

/** Stream-count limits above 2^60 are a FRAME_ENCODING_ERROR (RFC 9000 §19.11). */
export const MAX_STREAMS_LIMIT = 2 ** 60;
