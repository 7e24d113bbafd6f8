/**
 * QUIC transport error codes (RFC 9000 §20.1) used in CONNECTION_CLOSE (0x1c).
 * The reference qmux implementations send 1002 for every violation; we send the
 * specific QUIC code, which both of them accept (they only log it).
 */
export const TransportError = {
  NO_ERROR: 0x0,
  INTERNAL_ERROR: 0x1,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_LIMIT_ERROR: 0x4,
  STREAM_STATE_ERROR: 0x5,
  FINAL_SIZE_ERROR: 0x6,
  FRAME_ENCODING_ERROR: 0x7,
  TRANSPORT_PARAMETER_ERROR: 0x8,
  PROTOCOL_VIOLATION: 0xa,
} as const;

/** One of the QUIC transport error codes above. */
export type TransportErrorCode = (typeof TransportError)[keyof typeof TransportError];

/** A protocol violation detected in peer input, carrying the QUIC error code to close with. */
export class FramingError extends Error {
  /** Builds an error with its QUIC transport error code and a short reason. */
  constructor(
    /** The QUIC transport error code to close the connection with. */
    readonly code: TransportErrorCode,
    reason: string,
  ) {
    super(reason);
    this.name = "FramingError";
  }
}

/** A PROTOCOL_VIOLATION. */
export function violation(why: string): FramingError {
  return new FramingError(TransportError.PROTOCOL_VIOLATION, why);
}

/** A FLOW_CONTROL_ERROR. */
export function flowError(why: string): FramingError {
  return new FramingError(TransportError.FLOW_CONTROL_ERROR, why);
}

/** A stream lookup's failure as a violation: "ignore" (a stream already gone) is none. */
export function asError(stream: "ignore" | FramingError): FramingError | undefined {
  return stream === "ignore" ? undefined : stream;
}
