import { VARINT_SHORT, peekVarint } from "./varint.js";

/**
 * Bytes received on one stream and not consumed yet, kept as the chunks they arrived in.
 * Peeks work across chunk boundaries; {@link ByteQueue.take} returns a view into a chunk when
 * the range lies inside one (the common case for frames), and copies only when it spans chunks.
 */
export class ByteQueue {
  #chunks: Uint8Array[] = [];
  #head = 0;
  #offset = 0;
  #total = 0;
  readonly #scratch = new Uint8Array(8);

  /** Unconsumed bytes. */
  get length(): number {
    return this.#total;
  }

  /** Appends a chunk (kept by reference, not copied). */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#total += chunk.length;
  }

  /** Drops everything buffered. */
  clear(): void {
    this.#chunks = [];
    this.#head = 0;
    this.#offset = 0;
    this.#total = 0;
  }

  /** The byte `index` bytes past the read position, or -1 when not buffered. */
  byteAt(index: number): number {
    if (index >= this.#total) return -1;
    let i = this.#head;
    let at = this.#offset + index;
    for (;;) {
      const chunk = this.#chunks[i];
      if (chunk === undefined) return -1;
      if (at < chunk.length) return chunk[at] ?? -1;
      at -= chunk.length;
      i++;
    }
  }

  /**
   * The varint starting `index` bytes past the read position, or the sentinels of
   * {@link peekVarint} (short / above 2^53-1).
   */
  peekVarint(index: number): number {
    const chunk = this.#chunks[this.#head];
    if (chunk !== undefined) {
      const start = this.#offset + index;
      // Fast path: the whole varint (at most 8 bytes) is inside the head chunk.
      if (start + 8 <= chunk.length) return peekVarint(chunk, start, chunk.length);
    }
    const have = Math.min(8, this.#total - index);
    if (have <= 0) return VARINT_SHORT;
    for (let k = 0; k < have; k++) this.#scratch[k] = this.byteAt(index + k);
    return peekVarint(this.#scratch, 0, have);
  }

  /** Consumes `n` bytes without returning them. */
  skip(n: number): void {
    this.#total -= n;
    let left = n;
    while (left > 0) {
      const chunk = this.#chunks[this.#head];
      if (chunk === undefined) break;
      const avail = chunk.length - this.#offset;
      if (left < avail) {
        this.#offset += left;
        return;
      }
      left -= avail;
      this.#head++;
      this.#offset = 0;
    }
    this.#compact();
  }

  /** Consumes `n` buffered bytes: a view when they sit in one chunk, a copy otherwise. */
  take(n: number): Uint8Array {
    const chunk = this.#chunks[this.#head];
    if (chunk !== undefined && this.#offset + n <= chunk.length) {
      const out = chunk.subarray(this.#offset, this.#offset + n);
      this.skip(n);
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const c = this.#chunks[this.#head];
      if (c === undefined) break;
      const part = Math.min(c.length - this.#offset, n - filled);
      out.set(c.subarray(this.#offset, this.#offset + part), filled);
      filled += part;
      this.skip(part);
    }
    return out;
  }

  #compact(): void {
    // Release consumed chunks so the queue holds no references to bytes already handed out.
    if (this.#head === 0) return;
    if (this.#head >= this.#chunks.length) {
      this.#chunks = [];
    } else if (this.#head > 16 || this.#head * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head);
    } else {
      return;
    }
    this.#head = 0;
  }
}
