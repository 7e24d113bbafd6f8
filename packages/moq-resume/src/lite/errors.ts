/**
 * Wire error codes, numbered as the reference (moq-net `Error::to_code`) numbers them, so a
 * stream reset or session close carries the same code a Rust peer would send.
 */
export const LiteErrorCode = {
  /** Malformed bytes: short or long body, bad UTF-8, invalid field value, unknown type. */
  Decode: 5,
  /** The message or stream does not exist in the negotiated version. */
  Version: 9,
  /** A stream type that is known but not acceptable here (e.g. FETCH before lite-05). */
  UnexpectedStream: 10,
  /** An integer that cannot be represented (we refuse varints above 2^53-1). */
  BoundsExceeded: 11,
  /** A stream carried a message after the point where none may follow. */
  ProtocolViolation: 15,
  /** Encoding failed: a value is out of range or absent from the version. */
  Encode: 18,
  /** A frame larger than the configured limit. */
  FrameTooLarge: 27,
} as const;

/** One of the {@link LiteErrorCode} values. */
export type LiteErrorCode = (typeof LiteErrorCode)[keyof typeof LiteErrorCode];

/**
 * Finer reason for a {@link LiteError}; the wire code is coarse (most decode failures are
 * code 5 in the reference), the reason says which rule was broken.
 */
export type LiteErrorReason =
  | "short"
  | "long"
  | "invalid_utf8"
  | "invalid_value"
  | "unknown_type"
  | "too_large"
  | "too_many"
  | "duplicate"
  | "unsafe_integer"
  | "version"
  | "unexpected_stream"
  | "unexpected_message"
  | "truncated"
  /** A bug in this codec surfaced as an error instead of a crash; never expected. */
  | "internal";

/**
 * What the caller should tear down: only the stream (reset it with {@link LiteError.code}),
 * or the whole session (the lite-01/02 SETUP exchange failing leaves no session to keep).
 */
export type LiteErrorScope = "stream" | "session";

/** A typed moq-lite codec error carrying the reference's wire error code. */
export class LiteError extends Error {
  /** The wire error code to reset the stream / close the session with. */
  readonly code: LiteErrorCode;
  /** Which rule the input broke. */
  readonly reason: LiteErrorReason;
  /** Whether the stream or the whole session must end. */
  readonly scope: LiteErrorScope;

  /** Builds an error; `scope` defaults to the stream. */
  constructor(code: LiteErrorCode, reason: LiteErrorReason, message: string, scope: LiteErrorScope = "stream") {
    super(message);
    this.name = "LiteError";
    this.code = code;
    this.reason = reason;
    this.scope = scope;
  }

  /** The same error, escalated to (or narrowed to) another scope. */
  withScope(scope: LiteErrorScope): LiteError {
    return scope === this.scope ? this : new LiteError(this.code, this.reason, this.message, scope);
  }
}

/** A decode outcome: the value, or the typed error; decoders never throw at their boundary. */
export type LiteResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: LiteError };

/** Shorthand for a malformed-input error (code 5). */
export function malformed(reason: LiteErrorReason, message: string): LiteError {
  return new LiteError(LiteErrorCode.Decode, reason, message);
}

/** Shorthand for an encode-side error (code 18). */
export function encodeError(reason: LiteErrorReason, message: string): LiteError {
  return new LiteError(LiteErrorCode.Encode, reason, message);
}

/**
 * Runs a decoder that signals failure by throwing {@link LiteError} and turns it into a result.
 * Anything else thrown is a bug in this codec; it is reported as a decode error rather than
 * escaping, so a peer's bytes can never crash the caller.
 */
export function attempt<T>(fn: () => T): LiteResult<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (err instanceof LiteError) return { ok: false, error: err };
    const text = err instanceof Error ? err.message : String(err);
    return { ok: false, error: malformed("internal", `decoder failure: ${text}`) };
  }
}
