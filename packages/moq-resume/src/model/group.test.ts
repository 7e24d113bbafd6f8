import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClosedError } from "./errors.js";
import { Group } from "./group.js";
import { fill, frame } from "./tape.test-helpers.js";

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

  it("reads back each frame's timestamp by the group's own frame index", () => {
    const group = new Group(1, { firstFrame: 4 });
    group.write(frame("a"), 90_000);
    group.write(frame("b"), 93_000);
    expect([group.frameTimestamp(4), group.frameTimestamp(5), group.frameTimestamp(6)]).toEqual([90_000, 93_000, undefined]);
  });

  it("has no timestamp for a frame written without one", () => {
    const group = new Group(0);
    group.write(frame("a"));
    group.write(frame("b"), 7);
    expect([group.frameTimestamp(0), group.frameTimestamp(1)]).toEqual([undefined, 7]);
  });

  it("forgets its timestamps with its frames when aborted", () => {
    const group = new Group(0);
    group.write(frame("a"), 5);
    group.abort();
    expect(group.frameTimestamp(0)).toBeUndefined();
  });

  it("keeps every timestamp it was given, in any mix with untimed frames", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(), { nil: undefined }), { maxLength: 40 }), (stamps) => {
        const group = new Group(0);
        for (const stamp of stamps) group.write(frame("x"), stamp);
        expect(stamps.map((_, i) => group.frameTimestamp(i))).toEqual(stamps);
      }),
      { numRuns: 300 },
    );
  });
});
