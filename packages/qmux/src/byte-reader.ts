import { VARINT_UNSAFE, peekVarintBig, varintAt, varintLength } from "./varint.js";

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
    const bytes = this.bytes;
    const p = this.pos;
    if (p >= this.end) return this.#fail("short");
    const len = varintLength(bytes[p] ?? 0);
    if (p + len > this.end) return this.#fail("short");
    this.pos = p + len;
    const value = varintAt(bytes, p, len);
    return value === VARINT_UNSAFE ? this.#fail("range") : value;
  }

  /** Reads one varint exactly, as a bigint (for frame types and parameter ids). */
  varintBig(): bigint {
    if (this.failure !== undefined) return 0n;
    const p = this.pos;
    const value = peekVarintBig(this.bytes, p, this.end);
    if (value === undefined) {
      this.#fail("short");
      return 0n;
    }
    this.pos = p + varintLength(this.bytes[p] ?? 0);
    return value;
  }

  /** Takes the next `n` bytes as a view (no copy). */
  take(n: number): Uint8Array {
    if (this.failure !== undefined) return new Uint8Array(0);
    if (n > this.end - this.pos) {
      this.#fail("short");
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

  #fail(why: ReadFailure): number {
    this.failure ??= why;
    return 0;
  }
}
