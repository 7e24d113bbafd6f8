// Outbound STREAM frames are written byte for byte, so they need no zeroed buffer of their own:
// small ones are cut from a shared slab, as Node's Buffer.allocUnsafe does from its pool, without
// Node. This runs per frame per subscriber; a fresh ArrayBuffer each time is what it saves.

// A relay's group stream typically leaves as one STREAM frame of a few kilobytes per subscriber
// (a group's frames coalesced): a 32 KiB slab holds several, where an own ArrayBuffer each cost
// an allocation and GC work per subscriber per group. The bound on what one retained view can
// pin stays small (a slab, at most 32 KiB).
const SLAB_SIZE = 32768;
/** Frames of this size or more get their own buffer (a slab would hold too few). */
const OWN_BUFFER_FROM = 8192;

let slab = new Uint8Array(SLAB_SIZE);
let used = 0;

/**
 * A buffer of `size` bytes that the caller fills completely. A small one is a view into a slab
 * shared with earlier and later frames: never grow it, and never rely on the bytes beside it.
 */
export function frameBuffer(size: number): Uint8Array {
  if (size >= OWN_BUFFER_FROM) return new Uint8Array(size);
  if (used + size > SLAB_SIZE) {
    slab = new Uint8Array(SLAB_SIZE);
    used = 0;
  }
  const out = slab.subarray(used, used + size);
  // 8-byte alignment, as Node's pool keeps it.
  used = (used + size + 7) & ~7;
  return out;
}
