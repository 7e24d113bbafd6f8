import { encodeError } from "./errors.js";
import { checkEncodable, varintSize, writeVarint } from "./varint.js";

const utf8 = new TextEncoder();

/**
 * A growable byte buffer for encoding. Size-prefixed messages are written body-first and the
 * body is shifted right once its length (hence its prefix length) is known, so the prefix is
 * always the minimal varint the reference writes.
 */
export class ByteWriter {
  #buf: Uint8Array;
  #len = 0;

  /** Starts with `capacity` bytes of room. */
  constructor(capacity = 64) {
    this.#buf = new Uint8Array(capacity);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#len;
  }

  #reserve(extra: number): void {
    const need = this.#len + extra;
    if (need <= this.#buf.length) return;
    const grown = new Uint8Array(Math.max(need, this.#buf.length * 2));
    grown.set(this.#buf.subarray(0, this.#len));
    this.#buf = grown;
  }

  /** One raw byte (0..255). */
  u8(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw encodeError("invalid_value", `u8 out of range: ${value}`);
    }
    this.#reserve(1);
    this.#buf[this.#len++] = value;
    return this;
  }

  /** A big-endian u16 (the draft-14 SETUP size). */
  u16(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xffff) {
      throw encodeError("too_large", `u16 out of range: ${value}`);
    }
    this.#reserve(2);
    this.#buf[this.#len++] = value >>> 8;
    this.#buf[this.#len++] = value & 0xff;
    return this;
  }

  /** A bool as one byte, 0 or 1. */
  bool(value: boolean): this {
    return this.u8(value ? 1 : 0);
  }

  /** A QUIC varint; throws when not a non-negative safe integer. */
  varint(value: number, what = "varint"): this {
    checkEncodable(value, what);
    this.#reserve(8);
    this.#len = writeVarint(this.#buf, this.#len, value);
    return this;
  }

  /** `Option<u64>`: 0 for none, value+1 otherwise. */
  optional(value: number | undefined, what = "optional"): this {
    if (value === undefined) return this.varint(0);
    checkEncodable(value, what);
    if (value + 1 > Number.MAX_SAFE_INTEGER) throw encodeError("unsafe_integer", `${what} + 1 exceeds 2^53-1`);
    return this.varint(value + 1);
  }

  /** Raw bytes, no prefix. */
  bytes(value: Uint8Array): this {
    this.#reserve(value.length);
    this.#buf.set(value, this.#len);
    this.#len += value.length;
    return this;
  }

  /** Varint length then the bytes. */
  lengthPrefixed(value: Uint8Array): this {
    return this.varint(value.length).bytes(value);
  }

  /** Varint length then UTF-8. */
  string(value: string): this {
    // Short ASCII strings are written in place; anything else goes through TextEncoder.
    const n = value.length;
    if (n < 64) {
      this.#reserve(n + 1);
      const start = this.#len;
      this.#buf[start] = n;
      for (let i = 0; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) return this.lengthPrefixed(utf8.encode(value));
        this.#buf[start + 1 + i] = c;
      }
      this.#len = start + 1 + n;
      return this;
    }
    return this.lengthPrefixed(utf8.encode(value));
  }

  /** Writes `body` then inserts its varint length in front of it. */
  sized(body: (w: this) => void): this {
    const start = this.#len;
    body(this);
    const size = this.#len - start;
    const prefix = varintSize(size);
    this.#reserve(prefix);
    this.#buf.copyWithin(start + prefix, start, this.#len);
    writeVarint(this.#buf, start, size);
    this.#len += prefix;
    return this;
  }

  /** Writes `body` then inserts its length as a big-endian u16 (draft-14 SETUP framing). */
  sized16(body: (w: this) => void): this {
    const start = this.#len;
    body(this);
    const size = this.#len - start;
    if (size > 0xffff) throw encodeError("too_large", `message of ${size} bytes exceeds the u16 size field`);
    this.#reserve(2);
    this.#buf.copyWithin(start + 2, start, this.#len);
    this.#buf[start] = size >>> 8;
    this.#buf[start + 1] = size & 0xff;
    this.#len += 2;
    return this;
  }

  /** The bytes written, as a view of the internal buffer (valid until the next write). */
  view(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }

  /** A copy of the bytes written, owned by the caller. */
  finish(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
}
