import { describe, expect, it } from "vitest";
import { ClosedError } from "./errors.js";
import { Group } from "./group.js";
import { fill, frame } from "./testing.js";

describe("Group", () => {
  it("numbers frames from its first frame index", () => {
    const group = fill(new Group(3, { firstFrame: 2 }), "c", "d");
    expect([group.frameEnd, group.frame(2)?.length, group.frame(1)]).toEqual([4, 1, undefined]);
  });

  it("refuses writes once finished", () => {
    const group = new Group(0);
    group.finish();
    expect(() => group.write(frame("x"))).toThrow(ClosedError);
  });

  it("drops its frames and reports lost when evicted", () => {
    const group = fill(new Group(0), "a");
    group.evict();
    expect([group.lost, group.frame(0), group.state]).toEqual([true, undefined, "evicted"]);
  });

  it("stays readable but takes no more frames once sealed", () => {
    const group = fill(new Group(0), "a");
    group.seal();
    expect(group.frame(0)).toBeDefined();
    expect(() => group.write(frame("b"))).toThrow(ClosedError);
  });

  it("wakes its watcher on every change", () => {
    let wakes = 0;
    const group = new Group(0, {}, () => (wakes += 1));
    group.write(frame("a"));
    group.finish();
    expect(wakes).toBe(2);
  });
});
