// The QUIC varint itself is @handoff/qmux's (one implementation for the workspace: it is a QUIC
// primitive, and qmux is the QUIC layer below moq-lite); this module re-exports it under the names
// /lite always had, and adds what is moq-lite's: LiteError around encoding and decoding, zigzag.
import { peekVarint, VARINT_SHORT, VARINT_UNSAFE, varintLength, varintSize, writeVarint } from "@handoff/qmux/varint";
import { LiteError, LiteErrorCode, encodeError } from "./errors.js";

export {
  VARINT_MAX_SAFE,
  VARINT_MAX_WIRE,
  VARINT_SHORT,
  VARINT_UNSAFE,
  peekVarint,
  varintLength,
  varintSize,
  writeVarint,
} from "@handoff/qmux/varint";

/** Checks that `value` is a non-negative safe integer, the domain of every encoder here. */
export function checkEncodable(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw encodeError("unsafe_integer", `${what} must be a non-negative safe integer, got ${value}`);
  }
}

/** Encodes one varint into a fresh buffer. Throws {@link LiteError} (code 18) when out of range. */
export function encodeVarint(value: number): Uint8Array {
  checkEncodable(value, "varint");
  const out = new Uint8Array(varintSize(value));
  writeVarint(out, 0, value);
  return out;
}

/** The error for a varint above 2^53-1 (code 11, bounds exceeded). */
export function unsafeVarintError(): LiteError {
  return new LiteError(LiteErrorCode.BoundsExceeded, "unsafe_integer", "varint above 2^53-1 cannot be represented");
}

/** Decoded varint with its encoded length. */
export interface DecodedVarint {
  /** The value. */
  readonly value: number;
  /** Bytes it took on the wire. */
  readonly size: number;
}

/**
 * Decodes a varint at `offset`; `undefined` when the bytes end first, a {@link LiteError}
 * (code 11) when the value is above 2^53-1. Never throws.
 */
export function decodeVarint(src: Uint8Array, offset = 0): DecodedVarint | LiteError | undefined {
  const value = peekVarint(src, offset, src.length);
  if (value === VARINT_SHORT) return undefined;
  if (value === VARINT_UNSAFE) return unsafeVarintError();
  return { value, size: varintLength(src[offset] ?? 0) };
}

/** Zigzag-maps a signed delta to the unsigned varint domain (-1 → 1, 1 → 2, ...). */
export function zigzagEncode(signed: number): number {
  return signed >= 0 ? signed * 2 : -signed * 2 - 1;
}

/** Inverse of {@link zigzagEncode}. */
export function zigzagDecode(unsigned: number): number {
  return unsigned % 2 === 0 ? unsigned / 2 : -(unsigned + 1) / 2;
}
