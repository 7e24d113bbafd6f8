// QUIC variable-length integers (RFC 9000 §16) over plain numbers. Values above
// Number.MAX_SAFE_INTEGER only occur as frame types and parameter ids; those are
// read exactly with `varintBig`, every other field is refused past 2^53-1.

/** Largest value a QUIC varint can carry (2^62 - 1), as a bigint. */
export const VARINT_MAX_BIG = (1n << 62n) - 1n;

/** Number of bytes the varint encoding of `value` takes (1, 2, 4 or 8). */
export function varintSize(value: number): number {
  if (value < 0x40) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x40000000) return 4;
  return 8;
}

/**
 * Writes `value` (a non-negative safe integer) at `pos` in `out` and returns the
 * position after it. The caller sizes `out` with `varintSize`.
 */
export function writeVarint(out: Uint8Array, pos: number, value: number): number {
  if (value < 0x40) {
    out[pos] = value;
    return pos + 1;
  }
  if (value < 0x4000) {
    out[pos] = 0x40 | (value >>> 8);
    out[pos + 1] = value & 0xff;
    return pos + 2;
  }
  if (value < 0x40000000) {
    out[pos] = 0x80 | (value >>> 24);
    out[pos + 1] = (value >>> 16) & 0xff;
    out[pos + 2] = (value >>> 8) & 0xff;
    out[pos + 3] = value & 0xff;
    return pos + 4;
  }
  const hi = Math.floor(value / 0x100000000);
  const lo = value >>> 0;
  out[pos] = 0xc0 | (hi >>> 24);
  out[pos + 1] = (hi >>> 16) & 0xff;
  out[pos + 2] = (hi >>> 8) & 0xff;
  out[pos + 3] = hi & 0xff;
  out[pos + 4] = lo >>> 24;
  out[pos + 5] = (lo >>> 16) & 0xff;
  out[pos + 6] = (lo >>> 8) & 0xff;
  out[pos + 7] = lo & 0xff;
  return pos + 8;
}

/** Writes an 8-byte varint from a bigint (for frame types and ids above 2^53). */
export function writeVarintBig(out: Uint8Array, pos: number, value: bigint): number {
  const full = value | (3n << 62n);
  for (let i = 7; i >= 0; i--) {
    out[pos + i] = Number((full >> BigInt((7 - i) * 8)) & 0xffn);
  }
  return pos + 8;
}

/** Why a read stopped: the input ended early, or a value does not fit a safe integer. */
export type ReadFailure = "short" | "range";

/**
 * A forward-only cursor over a byte range. Reads never throw: the first failure
 * is recorded in `failure` and later reads return 0, so a decoder reads all its
 * fields and checks `failure` once.
 */
export class ByteReader {
  /** Position of the next unread byte. */
  pos: number;
  /** The first failure, if any read failed. */
  failure: ReadFailure | undefined = undefined;

  /** Reads `bytes[start, end)`. */
  constructor(
    readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /**
   * The first failure so far. A method rather than a field read, so the compiler
   * does not assume it unchanged across reads.
   */
  failed(): ReadFailure | undefined {
    return this.failure;
  }

  /** Bytes left before `end`. */
  get remaining(): number {
    return this.end - this.pos;
  }

  /** Reads one varint as a safe integer. */
  varint(): number {
    if (this.failure !== undefined) return 0;
    const b = this.bytes;
    const p = this.pos;
    if (p >= this.end) return this.fail("short");
    const first = b[p] ?? 0;
    const len = 1 << (first >> 6);
    if (p + len > this.end) return this.fail("short");
    this.pos = p + len;
    switch (len) {
      case 1:
        return first & 0x3f;
      case 2:
        return ((first & 0x3f) << 8) | (b[p + 1] ?? 0);
      case 4:
        return ((first & 0x3f) * 0x1000000 + (((b[p + 1] ?? 0) << 16) | ((b[p + 2] ?? 0) << 8) | (b[p + 3] ?? 0)));
      default: {
        const hi = (first & 0x3f) * 0x1000000 + (((b[p + 1] ?? 0) << 16) | ((b[p + 2] ?? 0) << 8) | (b[p + 3] ?? 0));
        // 2^53 / 2^32 = 2^21: a larger high word cannot be represented exactly.
        if (hi >= 0x200000) return this.fail("range");
        const lo = (((b[p + 4] ?? 0) << 24) | ((b[p + 5] ?? 0) << 16) | ((b[p + 6] ?? 0) << 8) | (b[p + 7] ?? 0)) >>> 0;
        return hi * 0x100000000 + lo;
      }
    }
  }

  /** Reads one varint exactly, as a bigint (for frame types and parameter ids). */
  varintBig(): bigint {
    if (this.failure !== undefined) return 0n;
    const p = this.pos;
    if (p >= this.end) {
      this.fail("short");
      return 0n;
    }
    const first = this.bytes[p] ?? 0;
    const len = 1 << (first >> 6);
    if (p + len > this.end) {
      this.fail("short");
      return 0n;
    }
    let value = BigInt(first & 0x3f);
    for (let i = 1; i < len; i++) value = (value << 8n) | BigInt(this.bytes[p + i] ?? 0);
    this.pos = p + len;
    return value;
  }

  /** Takes the next `n` bytes as a view (no copy). */
  take(n: number): Uint8Array {
    if (this.failure !== undefined) return new Uint8Array(0);
    if (n > this.end - this.pos) {
      this.fail("short");
      return new Uint8Array(0);
    }
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Takes everything up to `end`. */
  rest(): Uint8Array {
    return this.take(this.end - this.pos);
  }

  private fail(why: ReadFailure): number {
    this.failure ??= why;
    return 0;
  }
}
