import { describe, expect, it } from "vitest";
import { ByteQueue } from "./byte-queue.js";
import { VARINT_SHORT, VARINT_UNSAFE } from "./varint.js";

describe("ByteQueue", () => {
  it("returns a view, not a copy, when the bytes taken sit in one chunk", () => {
    const q = new ByteQueue();
    const chunk = Uint8Array.of(1, 2, 3, 4);
    q.push(chunk);
    q.skip(1);
    const taken = q.take(2);
    expect(Array.from(taken)).toEqual([2, 3]);
    expect(taken.buffer).toBe(chunk.buffer);
    expect(q.length).toBe(1);
  });

  it("copies bytes that span chunks into one buffer", () => {
    const q = new ByteQueue();
    q.push(Uint8Array.of(1, 2));
    q.push(Uint8Array.of(3));
    q.push(Uint8Array.of(4, 5));
    expect(Array.from(q.take(4))).toEqual([1, 2, 3, 4]);
    expect(q.byteAt(0)).toBe(5);
  });

  it("peeks a varint split across chunks", () => {
    const q = new ByteQueue();
    q.push(Uint8Array.of(0x80));
    q.push(Uint8Array.of(0x01, 0x00));
    expect(q.peekVarint(0)).toBe(VARINT_SHORT);
    q.push(Uint8Array.of(0x00));
    expect(q.peekVarint(0)).toBe(0x01_00_00);
  });

  it("flags a varint above 2^53-1 without consuming it", () => {
    const q = new ByteQueue();
    q.push(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff));
    expect(q.peekVarint(0)).toBe(VARINT_UNSAFE);
    expect(q.length).toBe(8);
  });

  it("reports bytes past the end as absent", () => {
    const q = new ByteQueue();
    q.push(Uint8Array.of(7));
    expect(q.byteAt(1)).toBe(-1);
    q.clear();
    expect([q.length, q.byteAt(0)]).toEqual([0, -1]);
  });

  it("ignores empty chunks", () => {
    const q = new ByteQueue();
    q.push(new Uint8Array(0));
    q.push(Uint8Array.of(9));
    expect(q.take(1)).toEqual(Uint8Array.of(9));
  });
});
