import { describe, expect, it } from "vitest";
import { frameBytes, Harness } from "../testing/harness.test-helpers.js";
import { subscribeTrack, outbound } from "../testing/serving.test-helpers.js";

describe("Serving: what a flush visits", () => {
  /** One subscription with `groups` groups of one frame each, `streams` of them opened, no credit left. */
  function backlog(groups: number, streams: number) {
    const h = new Harness({ limits: { maxOutboundGroups: 1000 } });
    h.publisher("cam");
    h.io.uniLeft = streams;
    h.io.credit = 0;
    const copy = subscribeTrack(h, 0, 1, "video", 0);
    const open = [];
    for (let g = 0; g < groups; g++) {
      const group = copy.createGroup(g);
      group.write(Uint8Array.of(g % 256));
      open.push(group);
    }
    return { h, copy, open };
  }

  it("a new frame behind a stalled backlog visits no stream: nothing it could write to changed", () => {
    // 60 groups stay in the track's 32-group cache from 28 on: 40 is opened and stalled, 59 waits.
    const { h, open } = backlog(60, 50);
    expect(h.io.opened(false)).toHaveLength(50);
    const before = h.serving.pumps;
    open[59]?.write(Uint8Array.of(1));
    open[40]?.write(Uint8Array.of(1));
    expect(h.serving.pumps - before).toBe(0);
  });

  it("room on one stream pumps that stream alone", () => {
    const { h } = backlog(60, 50);
    const [first] = h.io.opened(false);
    h.io.credit = Number.POSITIVE_INFINITY;
    const before = h.serving.pumps;
    h.serving.writable(outbound(h, first ?? -1));
    h.serving.flush();
    expect(h.serving.pumps - before).toBe(1);
  });

  it("a freed stream opens only the next waiting group", () => {
    const { h } = backlog(60, 50);
    h.io.uniLeft = 1;
    const before = h.serving.pumps;
    h.serving.streamsAvailable();
    h.serving.flush();
    // The one that opens, and the refused attempt that finds the limit again.
    expect(h.serving.pumps - before).toBe(2);
    expect(h.io.opened(false)).toHaveLength(51);
  });

  it("a new frame pumps only the subscription's streams that were waiting for one", () => {
    const h = new Harness();
    h.publisher("cam");
    const quiet = subscribeTrack(h, 0, 1, "quiet", 0);
    const live = subscribeTrack(h, 4, 2, "live", 0);
    for (let g = 0; g < 100; g++) quiet.createGroup(g).write(Uint8Array.of(0));
    const group = live.createGroup(0);
    const before = h.serving.pumps;
    group.write(Uint8Array.of(1));
    expect(h.serving.pumps - before).toBe(1);
    expect(frameBytes(h.groupMessages(h.io.opened(false)[100] ?? -1))).toEqual([1]);
  });
});
