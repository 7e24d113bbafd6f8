import { concatBytes } from "./bytes.js";

/**
 * The partial unit (frame or record) a byte-stream wire holds between pushes. Once the unit's
 * size is known, chunks are only collected until it is complete, so a peer trickling bytes
 * costs no re-parsing.
 */
export class HeldChunks {
  #held: Uint8Array[] = [];
  #bytes = 0;
  #needed = 0;

  /** The bytes to parse now (held ones first), or undefined while the held unit is still short. */
  take(chunk: Uint8Array): Uint8Array | undefined {
    if (this.#bytes === 0) return chunk;
    this.#held.push(chunk);
    this.#bytes += chunk.length;
    if (this.#bytes < this.#needed) return undefined;
    const bytes = concatBytes(this.#held, this.#bytes);
    this.#held = [];
    this.#bytes = 0;
    this.#needed = 0;
    return bytes;
  }

  /** Holds `bytes[start..]`, a unit of `needed` bytes in all (0 = size not known yet). */
  hold(bytes: Uint8Array, start: number, needed: number): void {
    // Copy: the partial unit must not pin the caller's (possibly large) chunk.
    this.#held = [bytes.slice(start)];
    this.#bytes = bytes.length - start;
    this.#needed = needed;
  }
}
