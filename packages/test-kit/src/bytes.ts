/** Bytes from a hex string; whitespace is ignored (so a packet can be written field by field). */
export function hex(s: string): Uint8Array {
  const digits = s.replace(/\s+/g, "");
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(digits)) throw new Error(`not hex bytes: ${s}`);
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Lower-case hex of `bytes`, without separators. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `parts` back to back in one new buffer. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
