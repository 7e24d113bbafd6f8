import { malformed } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import { normalizePath, pathParts } from "./path.js";
import { VARINT_SHORT, VARINT_UNSAFE, peekVarint, unsafeVarintError, varintLength } from "./varint.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads the fields of one complete message body. Every read is bounded by the body, so running
 * past it is the "body ends early" error; {@link BodyReader.finish} is the "bytes left over"
 * error. Failures throw {@link LiteError}, which the public decoders turn into results.
 */
export class BodyReader {
  #pos: number;
  readonly #src: Uint8Array;
  readonly #limits: LiteLimits;
  readonly #end: number;

  /** Reads `src[start, end)` under `limits`. */
  constructor(
    src: Uint8Array,
    limits: LiteLimits,
    start = 0,
    end: number = src.length,
  ) {
    this.#src = src;
    this.#limits = limits;
    this.#end = end;
    this.#pos = start;
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.#end - this.#pos;
  }

  /** One raw byte. */
  u8(): number {
    if (this.#pos >= this.#end) throw malformed("short", "message body ends early");
    return this.#src[this.#pos++] ?? 0;
  }

  /** A big-endian u16. */
  u16(): number {
    return (this.u8() << 8) | this.u8();
  }

  /** A QUIC varint, refused above 2^53-1. */
  varint(): number {
    const value = peekVarint(this.#src, this.#pos, this.#end);
    if (value === VARINT_SHORT) throw malformed("short", "message body ends inside a varint");
    if (value === VARINT_UNSAFE) throw unsafeVarintError();
    this.#pos += varintLength(this.#src[this.#pos] ?? 0);
    return value;
  }

  /** `Option<u64>`: 0 is none, otherwise value-1. */
  optional(): number | undefined {
    const raw = this.varint();
    return raw === 0 ? undefined : raw - 1;
  }

  /** `n` raw bytes, as a view (no copy). */
  bytes(n: number): Uint8Array {
    if (n > this.#end - this.#pos) throw malformed("short", "message body ends inside a byte field");
    const out = this.#src.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return out;
  }

  /** Varint length then that many bytes, bounded by `max`. */
  lengthPrefixed(max: number): Uint8Array {
    const n = this.varint();
    if (n > max) throw malformed("too_large", `field of ${n} bytes exceeds the limit of ${max}`);
    return this.bytes(n);
  }

  /** Varint length then UTF-8 text, bounded by `maxStringLength`. */
  string(): string {
    return decodeUtf8(this.lengthPrefixed(this.#limits.maxStringLength));
  }

  /** A broadcast path: a string, normalised like the reference, part count bounded. */
  path(): string {
    const raw = decodeUtf8(this.lengthPrefixed(this.#limits.maxPathLength));
    const path = normalizePath(raw);
    if (pathParts(path) > this.#limits.maxPathParts) {
      throw malformed("too_many", `path has more than ${this.#limits.maxPathParts} parts`);
    }
    return path;
  }

  /** A count for a list whose entries each take at least one byte, bounded by `max`. */
  count(max: number, what: string): number {
    const n = this.varint();
    if (n > max) throw malformed("too_many", `${what}: ${n} entries exceed the limit of ${max}`);
    // Each entry is at least one byte, so a count beyond the body is malformed before we loop.
    if (n > this.remaining) throw malformed("short", `${what}: ${n} entries cannot fit in the body`);
    return n;
  }

  /** Everything left, as a view. */
  rest(): Uint8Array {
    return this.bytes(this.remaining);
  }

  /** Fails when bytes are left over: the reference's `DecodeError::Long`. */
  finish(): void {
    if (this.#pos !== this.#end) throw malformed("long", `${this.#end - this.#pos} bytes left over after the message`);
  }
}

/** Strict UTF-8 decode; invalid sequences are a decode error, as in the reference. */
export function decodeUtf8(bytes: Uint8Array): string {
  // Short ASCII strings (track names, paths) are the norm; skip TextDecoder for them.
  if (bytes.length <= 64) {
    let ascii = "";
    for (const b of bytes) {
      if (b >= 0x80) return decodeUtf8Slow(bytes);
      ascii += String.fromCharCode(b);
    }
    return ascii;
  }
  return decodeUtf8Slow(bytes);
}

function decodeUtf8Slow(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw malformed("invalid_utf8", "string is not valid UTF-8");
  }
}
