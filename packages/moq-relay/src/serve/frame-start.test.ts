import { LITE_05, LITE_06 } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { lastCopy } from "../origin/test-source.test-helpers.js";
import { frameBytes, Harness, subscribeMsg } from "../testing/harness.test-helpers.js";

describe("a lite-06 subscriber joining a group at a frame", () => {
  it("gets the start group from the frame it asked, its header saying so, and the next groups whole", () => {
    const h = new Harness({ version: LITE_06 });
    const pub = h.publisher("cam");
    h.serve(0, subscribeMsg(7, "cam", { startGroup: 0, startFrame: 2 }));
    const copy = lastCopy(pub).track;
    const first = copy.createGroup(0);
    for (const b of [10, 11, 12]) first.write(Uint8Array.of(b), b);
    const second = copy.createGroup(1);
    second.write(Uint8Array.of(20), 20);
    first.write(Uint8Array.of(13), 13);
    first.finish();
    second.finish();
    const [g0, g1] = h.io.opened(false);
    if (g0 === undefined || g1 === undefined) throw new Error("groups not sent");
    const head0 = h.groupMessages(g0)[1];
    expect(head0).toEqual({ type: "group", subscribe: 7, sequence: 0, frameStart: 2 });
    expect(frameBytes(h.groupMessages(g0))).toEqual([12, 13]);
    expect(h.groupMessages(g1)[1]).toEqual({ type: "group", subscribe: 7, sequence: 1, frameStart: 0 });
    expect(frameBytes(h.groupMessages(g1))).toEqual([20]);
    expect(h.io.stream(g0).fin).toBe(true);
  });

  it("is served at once from a copy that holds only the frames from there on", () => {
    const h = new Harness({ version: LITE_06 });
    const pub = h.publisher("cam");
    h.serve(0, subscribeMsg(7, "cam", { startGroup: 4, startFrame: 3 }));
    const copy = lastCopy(pub).track;
    const group = copy.createGroup(4, { firstFrame: 3 });
    group.write(Uint8Array.of(33), 0);
    group.finish();
    const [g] = h.io.opened(false);
    if (g === undefined) throw new Error("group not sent");
    expect(frameBytes(h.groupMessages(g))).toEqual([33]);
    // Whole (FIN), not reset as incomplete: the frames below 3 were never owed.
    expect([h.io.stream(g).fin, h.io.stream(g).resets, h.stats.incompletes]).toEqual([true, [], 0]);
  });

  it("a lite-05 subscriber, which cannot ask for a frame, gets the whole group", () => {
    const h = new Harness({ version: LITE_05 });
    const pub = h.publisher("cam");
    h.serve(0, subscribeMsg(7, "cam", { startGroup: 0 }));
    const copy = lastCopy(pub).track;
    const group = copy.createGroup(0);
    for (const b of [10, 11]) group.write(Uint8Array.of(b), b);
    group.finish();
    const [g] = h.io.opened(false);
    if (g === undefined) throw new Error("group not sent");
    expect(frameBytes(h.groupMessages(g))).toEqual([10, 11]);
  });
});
