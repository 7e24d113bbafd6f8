import { MqttEncodeError, malformed } from "./errors.js";

// fatal: malformed sequences, overlongs and encoded surrogates (ED A0..BF ..) are refused
// [MQTT-1.5.4-1]. ignoreBOM: a leading U+FEFF is data and must not be stripped [MQTT-1.5.4-3].
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decodes an MQTT UTF-8 Encoded String body (without its length prefix).
 * Refuses ill-formed UTF-8 and U+0000 [MQTT-1.5.4-1..2] with Malformed Packet. Control characters
 * U+0001..U+001F and U+007F..U+009F are accepted: the spec lets a receiver refuse them but does
 * not require it, and real clients use them in payload-like strings (content types, user
 * properties); a topic policy can still refuse them above the codec.
 *
 * A fatal TextDecoder is used even for short ASCII topics: measured on Node 20 (bench/codec.ts)
 * it is as fast as building the string from char codes, so there is one path to trust.
 */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  // A zero byte is only ever U+0000 in well-formed UTF-8, so scanning bytes is enough.
  for (let i = start; i < end; i++) {
    if (buf[i] === 0) throw malformed("UTF-8 string contains U+0000");
  }
  try {
    return strictDecoder.decode(buf.subarray(start, end));
  } catch {
    throw malformed("ill-formed UTF-8 string");
  }
}

/**
 * Byte length of `str` encoded as UTF-8, refusing what MQTT forbids on the wire: U+0000 and lone
 * surrogates (which have no UTF-8 form) [MQTT-1.5.4-1..2]. Throws MqttEncodeError.
 */
export function utf8Length(str: string): number {
  const n = str.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = str.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0) throw new MqttEncodeError(0x81, "string contains U+0000");
    } else if (c < 0x800) {
      bytes += 1;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = str.charCodeAt(i + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
        throw new MqttEncodeError(0x81, "string contains a lone surrogate");
      }
      bytes += 2; // two UTF-16 units -> four bytes
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/** Writes `str` (whose UTF-8 length is `byteLength`) into `buf` at `pos`. */
export function writeUtf8(buf: Uint8Array, pos: number, str: string, byteLength: number): void {
  if (byteLength === str.length) {
    for (let i = 0; i < byteLength; i++) buf[pos + i] = str.charCodeAt(i);
    return;
  }
  encoder.encodeInto(str, buf.subarray(pos, pos + byteLength));
}
