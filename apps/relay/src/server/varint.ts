/** QUIC varint encoding of a non-negative safe integer (1, 2, 4 or 8 bytes). */
export function varintBytes(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a varint: ${String(value)}`);
  if (value < 0x40) return Uint8Array.of(value);
  if (value < 0x4000) return Uint8Array.of(0x40 | (value >> 8), value & 0xff);
  if (value < 0x40000000) {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, value);
    out[0] = (out[0] ?? 0) | 0x80;
    return out;
  }
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  out[0] = (out[0] ?? 0) | 0xc0;
  return out;
}
