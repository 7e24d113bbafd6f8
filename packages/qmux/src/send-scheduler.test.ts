import { describe, expect, it } from "vitest";
import { SendCredit } from "./flow.js";
import type { Frame } from "./frame.js";
import { encodeQmuxFrame } from "./qmux-codec.js";
import { SendScheduler } from "./send-scheduler.js";
import type { SendHalf, StreamState } from "./stream-table.js";

function stream(credit: number): StreamState {
  const send: SendHalf = { offset: 0, queue: [], queued: 0, finQueued: false, done: false, credit: new SendCredit(credit), wantWritable: false, pending: false };
  return { id: 3, bidi: false, local: true, send, recv: undefined };
}

function scheduler(connCredit: number): { sched: SendScheduler; frames: Frame[] } {
  const frames: Frame[] = [];
  const sched = new SendScheduler(true, { maxStreamBuffer: 1 << 20, maxConnectionBuffer: 1 << 20 }, {
    frame: (f) => frames.push(f),
    event: () => undefined,
    finished: () => undefined,
  });
  sched.conn.raise(connCredit);
  return { sched, frames };
}

describe("SendScheduler, parts", () => {
  it("sends a write of parts as one frame that holds the caller's very buffers, not a copy", () => {
    const { sched, frames } = scheduler(1000);
    const s = stream(1000);
    const header = Uint8Array.of(1, 2);
    const shared = new Uint8Array(100).fill(9);
    if (s.send === undefined) throw new Error("no send half");
    expect(sched.write(s, s.send, [header, shared, shared], true)).toBe(202);
    expect(s.send.queued).toBe(0);
    expect(frames).toHaveLength(1);
    const frame = frames[0];
    if (frame?.type !== "stream") throw new Error("no stream frame");
    expect(frame.fin).toBe(true);
    expect(frame.parts?.[0]).toBe(header);
    expect(frame.parts?.[1]).toBe(shared);
    expect(frame.parts?.[2]).toBe(shared);
    expect(frame.data.length).toBe(0);
  });

  it("accepts parts up to the credit and buffer room, cutting the part at the edge", () => {
    const frames: Frame[] = [];
    const sched = new SendScheduler(true, { maxStreamBuffer: 5, maxConnectionBuffer: 1 << 20 }, {
      frame: (f) => frames.push(f),
      event: () => undefined,
      finished: () => undefined,
    });
    sched.conn.raise(1000);
    const s = stream(3);
    if (s.send === undefined) throw new Error("no send half");
    const result = sched.write(s, s.send, [Uint8Array.of(1, 2), Uint8Array.of(3, 4, 5, 6), Uint8Array.of(7, 8, 9)], true);
    // 3 bytes of credit plus 5 of buffer: FIN is not taken with a cut-short write.
    expect(result).toBe(8);
    expect(s.send.queued).toBe(5);
    expect(s.send.finQueued).toBe(false);
    const frame = frames[0];
    if (frame?.type !== "stream") throw new Error("no stream frame");
    expect(frame.parts?.map((p) => [...p])).toEqual([[1, 2], [3]]);
    expect(s.send.queue.map((p) => [...p])).toEqual([[4, 5, 6], [7, 8]]);
  });

  it("gathers chunks of separate writes into one frame once credit comes", () => {
    const { sched, frames } = scheduler(1000);
    const s = stream(0);
    if (s.send === undefined) throw new Error("no send half");
    sched.write(s, s.send, Uint8Array.of(1), false);
    sched.write(s, s.send, Uint8Array.of(2, 3), false);
    expect(frames.filter((f) => f.type === "stream")).toHaveLength(0);
    s.send.credit.raise(10);
    sched.flush();
    const sent = frames.filter((f) => f.type === "stream");
    expect(sent).toHaveLength(1);
    expect(encodeQmuxFrame(sent[0] ?? { type: "padding" })).toEqual(encodeQmuxFrame({ type: "stream", id: 3, offset: 0, data: Uint8Array.of(1, 2, 3), fin: false }));
  });
});
