import { describe, expect, it } from "vitest";
import { COALESCE_BELOW, EventQueue } from "./event-queue.js";
import type { FramingEvent } from "./events.js";

describe("EventQueue", () => {
  it("hands the queued events over in order, once, and then one shared empty list", () => {
    const queue = new EventQueue();
    queue.push({ kind: "ready" });
    queue.push({ kind: "writable", streamId: 2 });
    expect(queue.poll()).toEqual([{ kind: "ready" }, { kind: "writable", streamId: 2 }]);
    const empty = queue.poll();
    expect(empty).toEqual([]);
    expect(queue.poll()).toBe(empty);
    expect(Object.isFrozen(empty)).toBe(true);
    queue.push({ kind: "ready" });
    expect(queue.poll()).toEqual([{ kind: "ready" }]);
  });
});

describe("EventQueue with records", () => {
  const send = (...bytes: number[]): FramingEvent => ({ kind: "send", bytes: Uint8Array.from(bytes) });
  const big = (): FramingEvent => ({ kind: "send", bytes: new Uint8Array(COALESCE_BELOW) });

  it("merges adjacent small sends into one, in order, and keeps other events where they were", () => {
    const queue = new EventQueue(100);
    for (const e of [send(1), send(2, 3), { kind: "ready" } as const, send(4), send(5)]) queue.push(e);
    expect(queue.poll()).toEqual([send(1, 2, 3), { kind: "ready" }, send(4, 5)]);
  });

  it("never builds a record over its limit", () => {
    const queue = new EventQueue(4);
    for (const e of [send(1, 2), send(3, 4), send(5)]) queue.push(e);
    expect(queue.poll()).toEqual([send(1, 2, 3, 4), send(5)]);
  });

  it("leaves a large frame alone and hands the list over as it is when nothing merges", () => {
    const queue = new EventQueue(16_382);
    const events = [send(1), big(), send(2), { kind: "ready" } as const, send(3)];
    for (const e of events) queue.push(e);
    expect(queue.poll()).toEqual(events);
  });

  it("merges nothing without a record limit", () => {
    const queue = new EventQueue();
    queue.push(send(1));
    queue.push(send(2));
    expect(queue.poll()).toEqual([send(1), send(2)]);
  });
});
