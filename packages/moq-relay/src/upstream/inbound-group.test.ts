import { LITE_04 } from "@handoff/moq-resume/lite";
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { RelayCode } from "../rules/relay-code.js";
import { InboundGroup } from "./inbound-group.js";
import { UpstreamSubscription } from "./upstream-subscription.js";
import { upstream, requests, handlerSub, groupBytes, receiveGroup, frames, bytes } from "../testing/upstreams.test-helpers.js";

describe("Upstreams: a copy that continues a half-delivered group", () => {
  it("skips the frames of the continued group already held and fills the rest", () => {
    const { h, up, writer } = upstream({ boundary: { group: 3, frame: 2 } });
    receiveGroup(h, 2, groupBytes(writer, 0, 3, bytes(10, 11, 12, 13)));
    const group = up.track.group(3);
    expect(group?.base).toBe(2);
    expect(frames(up.track, 3)).toEqual([undefined, undefined, 12, 13]);
    expect(group?.finished).toBe(true);
  });

  it("fills the groups after the continued one from their first frame", () => {
    const { h, up, writer } = upstream({ boundary: { group: 3, frame: 2 } });
    receiveGroup(h, 2, groupBytes(writer, 0, 3, bytes(10, 11, 12)));
    receiveGroup(h, 6, groupBytes(writer, 0, 4, bytes(20, 21)));
    expect(frames(up.track, 4)).toEqual([20, 21]);
  });

  it("asks for the continued group from its start in the SUBSCRIBE", () => {
    const { h, stream } = upstream({ boundary: { group: 3, frame: 2 } });
    expect(requests(h, stream)[1]).toMatchObject({ type: "subscribe", startGroup: 3 });
    expect(handlerSub(h, stream).continuation).toEqual({ group: 3, frame: 2 });
  });

  it("skips nothing when placed at a group boundary", () => {
    const { h, up, stream, writer } = upstream({ boundary: { group: 3, frame: 0 } });
    receiveGroup(h, 2, groupBytes(writer, 0, 3, bytes(10, 11)));
    expect(handlerSub(h, stream).continuation).toBeUndefined();
    expect(frames(up.track, 3)).toEqual([10, 11]);
  });

  it("does not count the skipped frames towards the group's byte limit", () => {
    const { h, up, writer } = upstream({ boundary: { group: 3, frame: 2 }, limits: { maxGroupBytes: 2 } });
    receiveGroup(h, 2, groupBytes(writer, 0, 3, [new Uint8Array(50), new Uint8Array(50), Uint8Array.of(1), Uint8Array.of(2)]));
    expect(h.stats.oversizes).toBe(0);
    expect(frames(up.track, 3).slice(2)).toEqual([1, 2]);
  });

  it("names the continuation's frame as the first frame of its group only", () => {
    const sub = new UpstreamSubscription(0, 1, LITE_04, "video", 0, 8, new ManualClock());
    expect(sub.firstFrame(3)).toBe(0);
    sub.continuation = { group: 3, frame: 2 };
    expect([sub.firstFrame(3), sub.firstFrame(2), sub.firstFrame(4)]).toEqual([2, 0, 0]);
  });
});

describe("Upstreams: inbound group streams", () => {
  it("files a group into the copy of the subscription it names, finishes it at FIN and counts it", () => {
    const { h, up, writer } = upstream();
    receiveGroup(h, 2, groupBytes(writer, 0, 0, [Uint8Array.of(1, 1), Uint8Array.of(2)]));
    expect(frames(up.track, 0)).toEqual([1, 2]);
    expect(up.track.group(0)?.finished).toBe(true);
    expect([h.stats.groupsIn, h.stats.framesIn, h.stats.bytesIn]).toEqual([1, 2, 3]);
    expect(h.handlers.has(2)).toBe(false);
  });

  it("keeps a group open until FIN, adding frames as they come", () => {
    const { h, up, writer } = upstream();
    const all = groupBytes(writer, 0, 0, bytes(1, 2));
    const group = new InboundGroup(LITE_04);
    h.receiveGroup(2, group, all.subarray(0, all.length - 2), false);
    expect(frames(up.track, 0)).toEqual([1]);
    h.receiveGroup(2, group, all.subarray(all.length - 2), false);
    expect(frames(up.track, 0)).toEqual([1, 2]);
    expect(up.track.group(0)?.finished).toBe(false);
  });

  it("stops a group for an unknown subscribe id with cancel", () => {
    const { h, writer } = upstream();
    receiveGroup(h, 2, groupBytes(writer, 9, 0, bytes(1)), false);
    expect(h.io.stream(2).stops).toEqual([RelayCode.Cancel]);
    expect(h.handlers.has(2)).toBe(false);
  });

  it("stops a group for a copy that already ended", () => {
    const { h, up, writer } = upstream();
    up.cancel();
    receiveGroup(h, 2, groupBytes(writer, 0, 0, bytes(1)), false);
    expect(h.io.stream(2).stops).toEqual([RelayCode.Cancel]);
  });

  it("stops a second stream for a group the copy already holds, leaving the first copy intact", () => {
    const { h, up, writer } = upstream();
    receiveGroup(h, 2, groupBytes(writer, 0, 0, bytes(1)));
    receiveGroup(h, 6, groupBytes(writer, 0, 0, bytes(9)), false);
    expect(h.io.stream(6).stops).toEqual([RelayCode.Cancel]);
    expect(frames(up.track, 0)).toEqual([1]);
  });

  it("aborts a group past maxGroupBytes, stops its stream with too-large and counts it", () => {
    const { h, up, writer } = upstream({ limits: { maxGroupBytes: 4 } });
    receiveGroup(h, 2, groupBytes(writer, 0, 0, [Uint8Array.of(1, 1, 1), Uint8Array.of(2, 2)]), false);
    expect(up.track.group(0)?.lost).toBe(true);
    expect(h.io.stream(2).stops).toEqual([RelayCode.TooLarge]);
    expect(h.stats.oversizes).toBe(1);
    expect(h.handlers.has(2)).toBe(false);
  });

  it("keeps a group of exactly maxGroupBytes", () => {
    const { h, up, writer } = upstream({ limits: { maxGroupBytes: 5 } });
    receiveGroup(h, 2, groupBytes(writer, 0, 0, [Uint8Array.of(1, 1, 1), Uint8Array.of(2, 2)]));
    expect(up.track.group(0)?.finished).toBe(true);
    expect(h.io.stream(2).stops).toEqual([]);
  });

  it("aborts the group and stops a stream cut short by FIN with the codec's code", () => {
    const { h, up, writer } = upstream();
    const all = groupBytes(writer, 0, 0, [Uint8Array.of(1, 2, 3)]);
    receiveGroup(h, 2, all.subarray(0, all.length - 1), true);
    expect(up.track.group(0)?.lost).toBe(true);
    expect(h.io.stream(2).stops).toHaveLength(1);
    expect(h.io.stream(2).stops[0]).toBeGreaterThan(0);
  });

  it("aborts its group when the peer resets the stream", () => {
    const { h, up, writer } = upstream();
    const group = receiveGroup(h, 2, groupBytes(writer, 0, 0, bytes(1)), false);
    group.reset();
    expect(up.track.group(0)?.lost).toBe(true);
  });
});
