import { LiteError, LiteErrorCode, encodeError } from "./errors.js";

/** Largest value a QUIC varint can carry (2^62-1); we decode only up to 2^53-1. */
export const VARINT_MAX_WIRE = 2n ** 62n - 1n;

/** Largest varint value this codec decodes into a `number`. */
export const VARINT_MAX_SAFE = Number.MAX_SAFE_INTEGER;

const TWO_32 = 2 ** 32;

/** Sentinel from {@link peekVarint}: not enough bytes yet. */
export const VARINT_SHORT = -1;
/** Sentinel from {@link peekVarint}: the value is above 2^53-1. */
export const VARINT_UNSAFE = -2;

/** Encoded length of `value` (1, 2, 4 or 8 bytes); the minimal form, as the reference writes. */
export function varintSize(value: number): 1 | 2 | 4 | 8 {
  if (value < 64) return 1;
  if (value < 16384) return 2;
  if (value < 1073741824) return 4;
  return 8;
}

/** Length of the varint whose first byte is `first`, from its 2-bit tag. */
export function varintLength(first: number): 1 | 2 | 4 | 8 {
  const tag = first >> 6;
  return tag === 0 ? 1 : tag === 1 ? 2 : tag === 2 ? 4 : 8;
}

/** Checks that `value` is a non-negative safe integer, the domain of every encoder here. */
export function checkEncodable(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw encodeError("unsafe_integer", `${what} must be a non-negative safe integer, got ${value}`);
  }
}

/**
 * Writes `value` at `offset` (the caller has room) and returns the offset past it.
 * The value must already be checked with {@link checkEncodable}.
 */
export function writeVarint(dst: Uint8Array, offset: number, value: number): number {
  if (value < 64) {
    dst[offset] = value;
    return offset + 1;
  }
  if (value < 16384) {
    dst[offset] = 0x40 | (value >>> 8);
    dst[offset + 1] = value & 0xff;
    return offset + 2;
  }
  if (value < 1073741824) {
    dst[offset] = 0x80 | (value >>> 24);
    dst[offset + 1] = (value >>> 16) & 0xff;
    dst[offset + 2] = (value >>> 8) & 0xff;
    dst[offset + 3] = value & 0xff;
    return offset + 4;
  }
  const hi = Math.floor(value / TWO_32);
  const lo = value - hi * TWO_32;
  dst[offset] = 0xc0 | (hi >>> 24);
  dst[offset + 1] = (hi >>> 16) & 0xff;
  dst[offset + 2] = (hi >>> 8) & 0xff;
  dst[offset + 3] = hi & 0xff;
  dst[offset + 4] = lo >>> 24;
  dst[offset + 5] = (lo >>> 16) & 0xff;
  dst[offset + 6] = (lo >>> 8) & 0xff;
  dst[offset + 7] = lo & 0xff;
  return offset + 8;
}

/** Encodes one varint into a fresh buffer. Throws {@link LiteError} (code 18) when out of range. */
export function encodeVarint(value: number): Uint8Array {
  checkEncodable(value, "varint");
  const out = new Uint8Array(varintSize(value));
  writeVarint(out, 0, value);
  return out;
}

/**
 * Reads the varint at `offset` within `[offset, end)`. Returns the value, or
 * {@link VARINT_SHORT} / {@link VARINT_UNSAFE}. Non-minimal encodings are accepted, as the
 * reference accepts them.
 */
export function peekVarint(src: Uint8Array, offset: number, end: number): number {
  if (offset >= end) return VARINT_SHORT;
  const first = src[offset] ?? 0;
  const len = varintLength(first);
  if (offset + len > end) return VARINT_SHORT;
  switch (len) {
    case 1:
      return first;
    case 2:
      return ((first & 0x3f) << 8) | (src[offset + 1] ?? 0);
    case 4:
      return (
        (first & 0x3f) * 0x1000000 +
        (((src[offset + 1] ?? 0) << 16) | ((src[offset + 2] ?? 0) << 8) | (src[offset + 3] ?? 0))
      );
    case 8: {
      const hi =
        (first & 0x3f) * 0x1000000 +
        (((src[offset + 1] ?? 0) << 16) | ((src[offset + 2] ?? 0) << 8) | (src[offset + 3] ?? 0));
      // 2^53 = 2^21 * 2^32: a high word of 2^21 or more cannot be represented exactly.
      if (hi >= 0x200000) return VARINT_UNSAFE;
      const lo =
        (src[offset + 4] ?? 0) * 0x1000000 +
        (((src[offset + 5] ?? 0) << 16) | ((src[offset + 6] ?? 0) << 8) | (src[offset + 7] ?? 0));
      return hi * TWO_32 + lo;
    }
  }
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
