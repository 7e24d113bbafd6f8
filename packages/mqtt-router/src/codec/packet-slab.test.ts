// Small packets share a slab (no off-heap buffer each); every packet's bytes are still its own.
import { describe, expect, it } from "vitest";
import { allocPacket, MAX_SLAB_PACKET, SLAB_BYTES } from "./packet-slab.js";

describe("allocPacket", () => {
  it("carves packets just over the heap limit from one slab, side by side", () => {
    const a = allocPacket(100);
    const b = allocPacket(100);
    expect(b.buffer).toBe(a.buffer);
    expect(a.buffer.byteLength).toBe(SLAB_BYTES);
    expect(b.byteOffset).toBe(a.byteOffset + 100);
  });

  it("hands out zeroed bytes that no other packet shares", () => {
    const a = allocPacket(200);
    const b = allocPacket(200);
    expect([...a].every((x) => x === 0)).toBe(true);
    a.fill(0xff);
    expect([...b].every((x) => x === 0)).toBe(true);
  });

  it("starts a new slab when the packet does not fit, and never reuses the old one", () => {
    const first = allocPacket(MAX_SLAB_PACKET);
    let last = first;
    while (last.buffer === first.buffer) last = allocPacket(MAX_SLAB_PACKET);
    expect(last.byteOffset).toBe(0);
    expect(first.buffer.byteLength).toBe(SLAB_BYTES);
    first.fill(1); // the old slab's bytes are still the packet's own
    expect([...last].every((x) => x === 0)).toBe(true);
  });

  it("gives tiny and large packets a buffer of their own", () => {
    for (const length of [0, 2, 64, MAX_SLAB_PACKET + 1, 100_000]) {
      const bytes = allocPacket(length);
      expect([bytes.byteOffset, bytes.buffer.byteLength]).toEqual([0, length]);
    }
  });
});
