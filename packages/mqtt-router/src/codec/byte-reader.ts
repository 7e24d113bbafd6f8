import { malformed } from "./errors.js";
import { decodeUtf8 } from "./utf8.js";
import { VARINT_INCOMPLETE, readVarint, varintLength } from "./varint.js";

/**
 * Cursor over one packet's bytes. Every read checks the bounds and throws MqttDecodeError
 * (Malformed Packet) when the packet is shorter than its fields say; the public decode API
 * catches it and returns it as a value. Binary reads return subarray views, never copies.
 */
export class ByteReader {
  /** Position of the next byte to read. */
  pos: number;
  /** Position just after the last readable byte (the end of the packet or property block). */
  end: number;

  /** @param buf bytes @param pos first byte to read @param end one past the last readable byte */
  constructor(
    readonly buf: Uint8Array,
    pos: number,
    end: number,
  ) {
    this.pos = pos;
    this.end = end;
  }

  /** Bytes left before `end`. */
  remaining(): number {
    return this.end - this.pos;
  }

  /** Reads one byte. */
  u8(): number {
    if (this.pos >= this.end) throw malformed("packet too short");
    return this.buf[this.pos++] ?? 0;
  }

  /** Reads a big-endian Two Byte Integer. */
  u16(): number {
    const p = this.pos;
    if (p + 2 > this.end) throw malformed("packet too short");
    this.pos = p + 2;
    return ((this.buf[p] ?? 0) << 8) | (this.buf[p + 1] ?? 0);
  }

  /** Reads a big-endian Four Byte Integer. */
  u32(): number {
    const p = this.pos;
    if (p + 4 > this.end) throw malformed("packet too short");
    this.pos = p + 4;
    const b = this.buf;
    return (b[p] ?? 0) * 0x1000000 + (((b[p + 1] ?? 0) << 16) | ((b[p + 2] ?? 0) << 8) | (b[p + 3] ?? 0));
  }

  /** Reads a Variable Byte Integer (at most four bytes, minimal encoding). */
  varint(): number {
    const v = readVarint(this.buf, this.pos, this.end);
    if (v < 0) throw malformed(v === VARINT_INCOMPLETE ? "packet too short" : "malformed variable byte integer");
    this.pos += varintLength(v);
    return v;
  }

  /** Reads a UTF-8 Encoded String (two-byte length prefix). */
  utf8(): string {
    const len = this.u16();
    const start = this.pos;
    if (start + len > this.end) throw malformed("string longer than packet");
    this.pos = start + len;
    return decodeUtf8(this.buf, start, start + len);
  }

  /** Reads Binary Data (two-byte length prefix) as a view into the packet bytes. */
  binary(): Uint8Array {
    const len = this.u16();
    const start = this.pos;
    if (start + len > this.end) throw malformed("binary data longer than packet");
    this.pos = start + len;
    return this.buf.subarray(start, start + len);
  }

  /** Returns the rest of the packet as a view (a PUBLISH payload). */
  rest(): Uint8Array {
    const start = this.pos;
    this.pos = this.end;
    return this.buf.subarray(start, this.end);
  }
}
