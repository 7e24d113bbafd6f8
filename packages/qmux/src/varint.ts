// QUIC variable-length integers (RFC 9000 §16) over plain numbers: the one implementation in the
// workspace (the qmux frames, moq-lite's codec in @handoff/moq-resume and the relay use it).
// Values above Number.MAX_SAFE_INTEGER are refused when read as numbers, never rounded; the
// 62-bit frame types and parameter ids of qmux are read and written as bigints.

/** Largest value a QUIC varint can carry (2^62 - 1); numbers are decoded only up to 2^53 - 1. */
export const VARINT_MAX_WIRE = 2n ** 62n - 1n;

/** Largest varint value decoded into a `number`. */
export const VARINT_MAX_SAFE = Number.MAX_SAFE_INTEGER;

const TWO_32 = 2 ** 32;

/** Sentinel from {@link peekVarint}: not enough bytes yet. */
export const VARINT_SHORT = -1;
/** Sentinel from {@link peekVarint}: the value is above 2^53 - 1. */
export const VARINT_UNSAFE = -2;

/** Encoded length of `value` (1, 2, 4 or 8 bytes); the minimal form, as the references write. */
export function varintSize(value: number): 1 | 2 | 4 | 8 {
  if (value < 64) return 1;
  if (value < 16384) return 2;
  if (value < 1073741824) return 4;
  return 8;
}

/** Length of the varint whose first byte is `first`, from its 2-bit tag. */
export function varintLength(first: number): 1 | 2 | 4 | 8 {
  // A shift, not a branch: this runs for every varint read.
  return (1 << (first >> 6)) as 1 | 2 | 4 | 8;
}

/**
 * Writes `value` (a non-negative safe integer, which the caller checked) at `offset` in `dst`,
 * which has room ({@link varintSize}), and returns the offset past it.
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

/** Writes an 8-byte varint from a bigint up to 2^62 - 1 (qmux frame types and ids above 2^53). */
export function writeVarintBig(dst: Uint8Array, offset: number, value: bigint): number {
  const full = value | (3n << 62n);
  for (let i = 7; i >= 0; i--) {
    dst[offset + i] = Number((full >> BigInt((7 - i) * 8)) & 0xffn);
  }
  return offset + 8;
}

/** One varint in a fresh buffer; a RangeError unless `value` is a non-negative safe integer. */
export function varintBytes(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a varint: ${String(value)}`);
  const out = new Uint8Array(varintSize(value));
  writeVarint(out, 0, value);
  return out;
}

/**
 * Reads the varint at `offset` within `[offset, end)`. Returns the value, or
 * {@link VARINT_SHORT} / {@link VARINT_UNSAFE}; never throws. Non-minimal encodings are
 * accepted, as the references accept them.
 */
export function peekVarint(src: Uint8Array, offset: number, end: number): number {
  if (offset >= end) return VARINT_SHORT;
  const len = varintLength(src[offset] ?? 0);
  if (offset + len > end) return VARINT_SHORT;
  return varintAt(src, offset, len);
}

/**
 * The value of the varint at `offset` whose length `len` ({@link varintLength} of its first
 * byte) the caller has checked is there, or {@link VARINT_UNSAFE}. For decoders that need the
 * length anyway, so it is worked out once.
 */
export function varintAt(src: Uint8Array, offset: number, len: 1 | 2 | 4 | 8): number {
  const first = src[offset] ?? 0;
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

/**
 * Reads the varint at `offset` within `[offset, end)` exactly, as a bigint (any 62-bit value);
 * undefined when the bytes end first.
 */
export function peekVarintBig(src: Uint8Array, offset: number, end: number): bigint | undefined {
  if (offset >= end) return undefined;
  const first = src[offset] ?? 0;
  const len = varintLength(first);
  if (offset + len > end) return undefined;
  let value = BigInt(first & 0x3f);
  for (let i = 1; i < len; i++) value = (value << 8n) | BigInt(src[offset + i] ?? 0);
  return value;
}
