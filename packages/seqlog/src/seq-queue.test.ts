import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SeqQueue, type QueueEntry } from "./seq-queue.js";

const seqs = (entries: Iterable<QueueEntry<unknown>>): number[] => [...entries].map((e) => e.seq);

describe("SeqQueue", () => {
  it("numbers pushes in order from its starting number", () => {
    const q = new SeqQueue<string>({ nextSeq: 10 });
    expect(q.pushBack("a", 1)).toEqual({ ok: true, seq: 10 });
    expect(q.pushBack("b", 1)).toEqual({ ok: true, seq: 11 });
    expect(q.nextSeq).toBe(12);
  });

  it("refuses a push past the count bound with an explicit reason", () => {
    const q = new SeqQueue<string>({ limits: { maxCount: 1 } });
    q.pushBack("a", 1);
    expect(q.pushBack("b", 1)).toEqual({ ok: false, reason: "count" });
    expect(q.count).toBe(1);
  });

  it("refuses a push past the byte bound with an explicit reason", () => {
    const q = new SeqQueue<string>({ limits: { maxBytes: 10 } });
    q.pushBack("a", 6);
    expect(q.pushBack("b", 5)).toEqual({ ok: false, reason: "bytes" });
    expect(q.pushBack("c", 4)).toMatchObject({ ok: true });
    expect(q.bytes).toBe(10);
  });

  it("counts in-flight entries against the bounds until they are acknowledged", () => {
    const q = new SeqQueue<string>({ limits: { maxCount: 2 } });
    q.pushBack("a", 1);
    q.pushBack("b", 1);
    q.take();
    expect(q.pushBack("c", 1)).toEqual({ ok: false, reason: "count" });
    q.ack(0);
    expect(q.pushBack("c", 1)).toMatchObject({ ok: true });
  });

  it("takes from the head and acknowledges by sequence number", () => {
    const q = new SeqQueue<string>();
    q.pushBack("a", 3);
    q.pushBack("b", 4);
    expect(q.take()).toEqual({ seq: 0, value: "a", bytes: 3 });
    expect(q.inflightCount).toBe(1);
    expect(q.ack(0)?.value).toBe("a");
    expect(q.ack(0)).toBeUndefined();
    expect(q.bytes).toBe(4);
  });

  it("takes matching entries out of turn into flight, keeping them counted until acknowledged", () => {
    const q = new SeqQueue<string>();
    for (const v of ["a", "B", "c", "D"]) q.pushBack(v, 1);
    expect(seqs(q.takeWhere((e) => e.value === e.value.toUpperCase()))).toEqual([1, 3]);
    expect(seqs(q.queued())).toEqual([0, 2]);
    expect(q.inflightCount).toBe(2);
    expect(q.bytes).toBe(4);
    expect(q.ack(3)?.value).toBe("D");
    expect(q.requeueInflight()).toBe(1);
    expect(seqs(q.queued())).toEqual([0, 1, 2]);
  });

  it("puts unacknowledged in-flight entries back before the queue in their original order", () => {
    const q = new SeqQueue<string>();
    for (const v of ["a", "b", "c", "d"]) q.pushBack(v, 1);
    q.take();
    q.take();
    q.take();
    q.ack(1);
    expect(q.requeueInflight()).toBe(2);
    expect(seqs(q.queued())).toEqual([0, 2, 3]);
    expect(q.inflightCount).toBe(0);
  });

  it("merges requeued in-flight entries with entries restored below them", () => {
    const q = new SeqQueue<string>({ nextSeq: 5 });
    q.pushBack("e", 1);
    q.pushBack("f", 1);
    q.take();
    expect(q.requeueFront([{ seq: 3, value: "d", bytes: 1 }])).toEqual({ ok: true });
    q.requeueInflight();
    expect(seqs(q.queued())).toEqual([3, 5, 6]);
  });

  it("restores persisted entries below the head", () => {
    const q = new SeqQueue<string>({ nextSeq: 10 });
    q.pushBack("k", 1);
    expect(
      q.requeueFront([
        { seq: 4, value: "e", bytes: 1 },
        { seq: 7, value: "h", bytes: 1 },
      ]),
    ).toEqual({ ok: true });
    expect(seqs(q.queued())).toEqual([4, 7, 10]);
  });

  it("throws when restored entries are not below the head or not in order", () => {
    const q = new SeqQueue<string>({ nextSeq: 10 });
    q.pushBack("k", 1);
    expect(() => q.requeueFront([{ seq: 10, value: "x", bytes: 1 }])).toThrow(RangeError);
    expect(() =>
      q.requeueFront([
        { seq: 5, value: "x", bytes: 1 },
        { seq: 4, value: "y", bytes: 1 },
      ]),
    ).toThrow(RangeError);
  });

  it("restores nothing when the restored entries would pass a bound", () => {
    const q = new SeqQueue<string>({ nextSeq: 10, limits: { maxCount: 2 } });
    q.pushBack("k", 1);
    expect(
      q.requeueFront([
        { seq: 1, value: "a", bytes: 1 },
        { seq: 2, value: "b", bytes: 1 },
      ]),
    ).toEqual({ ok: false, reason: "count" });
    expect(seqs(q.queued())).toEqual([10]);
  });

  it("restores entries past a bound when told they were admitted once already", () => {
    const q = new SeqQueue<string>({ nextSeq: 10, limits: { maxCount: 1 } });
    const entries = [
      { seq: 1, value: "a", bytes: 1 },
      { seq: 2, value: "b", bytes: 1 },
    ];
    expect(q.requeueFront(entries, { allowOverLimit: true })).toEqual({ ok: true });
    expect(seqs(q.queued())).toEqual([1, 2]);
    expect(q.pushBack("c", 1)).toEqual({ ok: false, reason: "count" });
  });

  it("discards everything on clear and moves to the next epoch", () => {
    const q = new SeqQueue<string>({ epoch: 3 });
    q.pushBack("a", 1);
    q.pushBack("b", 1);
    q.take();
    const cleared = q.clear();
    expect(cleared.epoch).toBe(4);
    expect(seqs(cleared.dropped)).toEqual([0, 1]);
    expect(q.count).toBe(0);
    expect(q.bytes).toBe(0);
  });

  it("refuses a push built under the epoch before a clear", () => {
    const q = new SeqQueue<string>();
    const planned = q.epoch;
    q.clear();
    expect(q.pushIfEpoch(planned, "stale", 1)).toEqual({ ok: false, reason: "stale-epoch" });
    expect(q.pushIfEpoch(q.epoch, "fresh", 1)).toMatchObject({ ok: true });
  });

  it("removes matching queued entries but leaves in-flight ones alone", () => {
    const q = new SeqQueue<number>();
    for (let i = 0; i < 5; i++) q.pushBack(i, 2);
    q.take();
    const removed = q.removeWhere((e) => e.value % 2 === 0);
    expect(removed.map((e) => e.value)).toEqual([2, 4]);
    expect(seqs(q.queued())).toEqual([1, 3]);
    expect(q.inflightCount).toBe(1);
    expect(q.bytes).toBe(6);
  });

  it("evicts only the oldest matching entry", () => {
    const q = new SeqQueue<string>();
    for (const v of ["q1", "q0", "q0", "q1"]) q.pushBack(v, 1);
    expect(q.evictFirst((e) => e.value === "q0")?.seq).toBe(1);
    expect(seqs(q.queued())).toEqual([0, 2, 3]);
  });

  it("refuses an entry size that is not a non-negative integer", () => {
    const q = new SeqQueue<string>();
    expect(() => q.pushBack("a", -1)).toThrow(RangeError);
  });
});

type Op =
  | { k: "push"; bytes: number }
  | { k: "pushIfEpoch"; stale: boolean; bytes: number }
  | { k: "take" }
  | { k: "ack"; pick: number }
  | { k: "requeue" }
  | { k: "clear" }
  | { k: "expire"; mod: number };

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ k: fc.constant("push" as const), bytes: fc.integer({ min: 0, max: 40 }) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant("pushIfEpoch" as const), stale: fc.boolean(), bytes: fc.integer({ min: 0, max: 40 }) }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant("take" as const) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant("ack" as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("requeue" as const) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("clear" as const) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("expire" as const), mod: fc.integer({ min: 2, max: 5 }) }) },
  ),
  { maxLength: 80 },
);

describe("SeqQueue invariants over random operation sequences", () => {
  it("never reorders, never passes its bounds, and never admits a push fenced by an older epoch", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 10, max: 120 }), ops, (maxCount, maxBytes, sequence) => {
        const q = new SeqQueue<number>({ limits: { maxCount, maxBytes } });
        // The model: every entry the queue should hold, by seq, and which are in flight.
        const held = new Map<number, { bytes: number; inflight: boolean }>();
        let epoch = 0;
        for (const op of sequence) {
          switch (op.k) {
            case "push":
            case "pushIfEpoch": {
              const at = op.k === "pushIfEpoch" && op.stale ? epoch - 1 : epoch;
              const result = op.k === "push" ? q.pushBack(0, op.bytes) : q.pushIfEpoch(at, 0, op.bytes);
              const bytesHeld = [...held.values()].reduce((sum, e) => sum + e.bytes, 0);
              if (op.k === "pushIfEpoch" && op.stale) expect(result).toEqual({ ok: false, reason: "stale-epoch" });
              else if (held.size + 1 > maxCount) expect(result).toEqual({ ok: false, reason: "count" });
              else if (bytesHeld + op.bytes > maxBytes) expect(result).toEqual({ ok: false, reason: "bytes" });
              else {
                expect(result.ok).toBe(true);
                if (result.ok) held.set(result.seq, { bytes: op.bytes, inflight: false });
              }
              break;
            }
            case "take": {
              const waiting = [...held.entries()].filter(([, e]) => !e.inflight).map(([s]) => s);
              const expected = waiting.length === 0 ? undefined : Math.min(...waiting);
              expect(q.take()?.seq).toBe(expected);
              const entry = expected === undefined ? undefined : held.get(expected);
              if (entry) entry.inflight = true;
              break;
            }
            case "ack": {
              const flying = [...held.entries()].filter(([, e]) => e.inflight).map(([s]) => s);
              const seq = flying.length === 0 ? op.pick : (flying[op.pick % flying.length] ?? 0);
              expect(q.ack(seq) !== undefined).toBe(held.get(seq)?.inflight === true);
              if (held.get(seq)?.inflight === true) held.delete(seq);
              break;
            }
            case "requeue":
              q.requeueInflight();
              for (const e of held.values()) e.inflight = false;
              break;
            case "clear":
              q.clear();
              held.clear();
              epoch += 1;
              break;
            case "expire":
              for (const e of q.removeWhere((entry) => entry.seq % op.mod === 0)) held.delete(e.seq);
              break;
          }
          // Order: queued entries are strictly increasing, all numbers ever given are unique.
          const queued = seqs(q.queued());
          expect(queued).toEqual([...queued].sort((a, b) => a - b));
          expect(new Set([...queued, ...seqs(q.inflight())]).size).toBe(q.count);
          // Bounds, and agreement with the model.
          expect(q.count).toBeLessThanOrEqual(maxCount);
          expect(q.bytes).toBeLessThanOrEqual(maxBytes);
          expect(q.count).toBe(held.size);
          expect(q.bytes).toBe([...held.values()].reduce((sum, e) => sum + e.bytes, 0));
          expect(q.epoch).toBe(epoch);
        }
      }),
      { numRuns: 500 },
    );
  });
});
