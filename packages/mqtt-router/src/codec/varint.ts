/** Largest value a Variable Byte Integer can hold (four bytes, spec §1.5.5). */
export const MAX_VARINT = 268_435_455;

/** Number of bytes the Variable Byte Integer encoding of `value` takes (1..4). */
export function varintLength(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  return 4;
}

/** Writes `value` (0..MAX_VARINT) as a Variable Byte Integer; returns the position after it. */
export function writeVarint(buf: Uint8Array, pos: number, value: number): number {
  let v = value;
  do {
    let byte = v & 0x7f;
    v = v >>> 7;
    if (v > 0) byte |= 0x80;
    buf[pos++] = byte;
  } while (v > 0);
  return pos;
}

/** readVarint result: the bytes end before the integer does. */
export const VARINT_INCOMPLETE = -1;
/** readVarint result: more than four bytes, or not the shortest encoding [MQTT-1.5.5-1]. */
export const VARINT_MALFORMED = -2;

/**
 * Reads a Variable Byte Integer at `pos` without allocating or throwing. Returns the value (its
 * length is `varintLength(value)`, since only minimal encodings are accepted), or
 * VARINT_INCOMPLETE / VARINT_MALFORMED.
 */
export function readVarint(buf: Uint8Array, pos: number, end: number): number {
  let value = 0;
  let mult = 1;
  for (let i = 0; i < 4; i++) {
    if (pos + i >= end) return VARINT_INCOMPLETE;
    const b = buf[pos + i] ?? 0;
    value += (b & 0x7f) * mult;
    if ((b & 0x80) === 0) {
      // A final zero byte after a continuation means a longer-than-needed encoding.
      return b === 0 && i > 0 ? VARINT_MALFORMED : value;
    }
    mult *= 128;
  }
  return VARINT_MALFORMED;
}
