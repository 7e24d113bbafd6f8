import { describe, expect, it } from "vitest";
import { ControlBacklog } from "./control-backlog.js";

/** A framing seam that takes at most `room` bytes until given more, recording what it took. */
function seam(room: number) {
  const taken: number[] = [];
  let fin = false;
  let gone = false;
  const state = { room };
  const write = (_id: number, bytes: Uint8Array, f: boolean): number | undefined => {
    if (gone) return undefined;
    const n = Math.min(state.room, bytes.length);
    state.room -= n;
    taken.push(...bytes.subarray(0, n));
    if (n === bytes.length && f) fin = true;
    return n;
  };
  return {
    write,
    state,
    taken,
    fin: () => fin,
    goAway: () => {
      gone = true;
    },
  };
}

describe("ControlBacklog", () => {
  it("writes straight through while the framing takes everything", () => {
    const s = seam(100);
    const b = new ControlBacklog(s.write, 1000, () => undefined);
    b.send(0, Uint8Array.of(1, 2, 3), true);
    expect([s.taken, s.fin(), b.bytes]).toEqual([[1, 2, 3], true, 0]);
  });

  it("keeps what a short write left and sends it, then later messages, in order when the stream is writable", () => {
    const s = seam(2);
    const b = new ControlBacklog(s.write, 1000, () => undefined);
    b.send(0, Uint8Array.of(1, 2, 3), false);
    b.send(0, Uint8Array.of(4, 5), false);
    b.send(0, new Uint8Array(0), true);
    expect([s.taken, s.fin(), b.bytes]).toEqual([[1, 2], false, 3]);
    s.state.room = 2;
    b.writable(0);
    expect([s.taken, s.fin(), b.bytes]).toEqual([[1, 2, 3, 4], false, 1]);
    s.state.room = 10;
    b.writable(0);
    expect([s.taken, s.fin(), b.bytes]).toEqual([[1, 2, 3, 4, 5], true, 0]);
  });

  it("does not hold streams back from each other", () => {
    const s = seam(1);
    const b = new ControlBacklog(s.write, 1000, () => undefined);
    b.send(0, Uint8Array.of(1, 2), false);
    s.state.room = 1;
    b.send(4, Uint8Array.of(9), false);
    expect(s.taken).toEqual([1, 9]);
  });

  it("forgets a dropped stream's bytes, and those of a stream the framing no longer takes", () => {
    const s = seam(0);
    const b = new ControlBacklog(s.write, 1000, () => undefined);
    b.send(0, Uint8Array.of(1, 2), false);
    b.send(4, Uint8Array.of(3), false);
    b.drop(0);
    expect(b.bytes).toBe(1);
    s.goAway();
    b.writable(4);
    expect(b.bytes).toBe(0);
  });

  it("reports once when more than its limit waits", () => {
    const s = seam(0);
    let overflows = 0;
    const b = new ControlBacklog(s.write, 4, () => (overflows += 1));
    b.send(0, Uint8Array.of(1, 2, 3, 4), false);
    expect(overflows).toBe(0);
    b.send(0, Uint8Array.of(5), false);
    b.send(4, Uint8Array.of(6), false);
    expect(overflows).toBe(1);
  });
});
