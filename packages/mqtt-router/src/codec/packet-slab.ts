/**
 * Where encoded packets get their bytes. V8 allocates a typed array of up to 64 bytes on the JS
 * heap (cheap), but a larger one gets its own off-heap backing store: a malloc, external memory
 * accounting and a sweep in every GC, about 180 ns against 30 for a slice. Most packets a broker
 * sends are just above that line (a PUBLISH with a short topic and a small payload), so they are
 * carved from a shared slab instead, as Node's Buffer pool does.
 *
 * A slab is never reused: once full, the next one starts and the old one lives as long as any
 * packet carved from it, so a packet's bytes stay its own. Only small packets are carved, so one
 * packet held long (a stalled socket's queue) pins at most a slab of {@link SLAB_BYTES}.
 * @module
 */

/** Size of one slab. */
export const SLAB_BYTES = 16 * 1024;
/** Larger packets get their own buffer (a slab would hold few of them). */
export const MAX_SLAB_PACKET = 1024;
// V8's limit for typed arrays on the JS heap (v8 flag typed_array_max_size_in_heap).
const HEAP_BYTES = 64;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

/** `length` zeroed bytes that no other packet shares (the caller writes every one). */
export function allocPacket(length: number): Uint8Array {
  if (length <= HEAP_BYTES || length > MAX_SLAB_PACKET) return new Uint8Array(length);
  if (used + length > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const bytes = new Uint8Array(slab, used, length);
  used += length;
  return bytes;
}
