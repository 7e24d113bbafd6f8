import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";

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
