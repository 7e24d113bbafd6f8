import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Deque } from "./deque.js";

describe("Deque", () => {
  it("pops from the front in push order", () => {
    const d = new Deque<number>();
    d.pushBack(1);
    d.pushBack(2);
    d.pushFront(0);
    expect([d.popFront(), d.popFront(), d.popFront(), d.popFront()]).toEqual([0, 1, 2, undefined]);
  });

  it("grows past its initial capacity keeping order across the wrap", () => {
    const d = new Deque<number>(4);
    for (let i = 0; i < 3; i++) d.pushBack(i);
    d.popFront();
    for (let i = 3; i < 20; i++) d.pushBack(i);
    d.pushFront(0);
    expect([...d]).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("filters in place and returns what it removed", () => {
    const d = new Deque<number>();
    for (let i = 0; i < 6; i++) d.pushBack(i);
    expect(d.filter((n) => n % 2 === 0)).toEqual([1, 3, 5]);
    expect([...d]).toEqual([0, 2, 4]);
    expect(d.peekBack()).toBe(4);
  });

  it("removes from the middle, the front half or the back half keeping the rest in order", () => {
    const d = new Deque<number>(4);
    for (let i = 0; i < 3; i++) d.pushBack(i);
    d.popFront();
    d.popFront();
    for (let i = 3; i < 10; i++) d.pushBack(i); // wraps around the ring
    expect(d.removeAt(1)).toBe(3);
    expect(d.removeAt(5)).toBe(8);
    expect(d.removeAt(99)).toBeUndefined();
    expect([...d]).toEqual([2, 4, 5, 6, 7, 9]);
  });

  it("behaves like an array under any sequence of end and middle operations", () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant("pb" as const), v: fc.integer() }),
      fc.record({ k: fc.constant("pf" as const), v: fc.integer() }),
      fc.record({ k: fc.constant("ob" as const) }),
      fc.record({ k: fc.constant("of" as const) }),
      fc.record({ k: fc.constant("rm" as const), at: fc.nat({ max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 100 }), (ops) => {
        const d = new Deque<number>(4);
        const model: number[] = [];
        for (const o of ops) {
          switch (o.k) {
            case "pb":
              d.pushBack(o.v);
              model.push(o.v);
              break;
            case "pf":
              d.pushFront(o.v);
              model.unshift(o.v);
              break;
            case "ob":
              expect(d.popBack()).toBe(model.pop());
              break;
            case "of":
              expect(d.popFront()).toBe(model.shift());
              break;
            case "rm":
              expect(d.removeAt(o.at)).toBe(o.at < model.length ? model.splice(o.at, 1)[0] : undefined);
              break;
          }
          expect(d.length).toBe(model.length);
        }
        expect([...d]).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
