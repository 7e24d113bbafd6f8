import { MqttEncodeError } from "./errors.js";
import { utf8Length, writeUtf8 } from "./utf8.js";
import { varintLength, writeVarint } from "./varint.js";

/** Largest value of a Two Byte Integer (and longest MQTT string or binary field). */
export const MAX_U16 = 0xffff;
/** Largest value of a Four Byte Integer. */
export const MAX_U32 = 0xffff_ffff;

/**
 * Writer over a buffer that was sized exactly beforehand (encoders measure first, then write),
 * so there is no bounds growth and no concatenation.
 */
export class ByteWriter {
  /** Position of the next byte to write. */
  pos = 0;

  /** @param buf the pre-sized destination */
  constructor(readonly buf: Uint8Array) {}

  /** Writes one byte. */
  u8(v: number): void {
    this.buf[this.pos++] = v;
  }

  /** Writes a big-endian Two Byte Integer. */
  u16(v: number): void {
    const p = this.pos;
    this.buf[p] = v >>> 8;
    this.buf[p + 1] = v & 0xff;
    this.pos = p + 2;
  }

  /** Writes a big-endian Four Byte Integer. */
  u32(v: number): void {
    const p = this.pos;
    this.buf[p] = v >>> 24;
    this.buf[p + 1] = (v >>> 16) & 0xff;
    this.buf[p + 2] = (v >>> 8) & 0xff;
    this.buf[p + 3] = v & 0xff;
    this.pos = p + 4;
  }

  /** Writes a Variable Byte Integer. */
  varint(v: number): void {
    this.pos = writeVarint(this.buf, this.pos, v);
  }

  /** Writes a UTF-8 Encoded String whose byte length was measured with {@link stringSize}. */
  utf8(s: string, byteLength: number): void {
    this.u16(byteLength);
    writeUtf8(this.buf, this.pos, s, byteLength);
    this.pos += byteLength;
  }

  /** Writes Binary Data with its two-byte length prefix. */
  binary(b: Uint8Array): void {
    this.u16(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Writes raw bytes (a PUBLISH payload). */
  raw(b: Uint8Array): void {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}

/** UTF-8 byte length of `s`, checked to fit an MQTT string (≤ 65535 bytes, no U+0000). */
export function stringByteLength(s: string, what: string): number {
  // Run-time type check: packets can come from untyped code.
  if (typeof (s as unknown) !== "string") throw new MqttEncodeError(0x81, `${what} must be a string`);
  const n = utf8Length(s);
  if (n > MAX_U16) throw new MqttEncodeError(0x81, `${what} is longer than 65535 bytes`);
  return n;
}

/** Checks that binary data fits an MQTT Binary Data field (≤ 65535 bytes). */
export function checkBinary(b: Uint8Array, what: string): void {
  if (!((b as unknown) instanceof Uint8Array)) throw new MqttEncodeError(0x81, `${what} must be a Uint8Array`);
  if (b.length > MAX_U16) throw new MqttEncodeError(0x81, `${what} is longer than 65535 bytes`);
}

/** Checks an integer field's range before it is written. */
export function checkInt(v: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new MqttEncodeError(0x81, `${what} must be an integer in ${min}..${max}`);
  }
}

/** Bytes a fixed header takes for a given remaining length. */
export function fixedHeaderLength(remainingLength: number): number {
  return 1 + varintLength(remainingLength);
}
