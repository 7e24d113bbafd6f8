import type { LiteStreamWriter} from "@handoff/moq-resume/lite";
import { LITE_01, LITE_02, LITE_03, LITE_04, LITE_05, LITE_06, type LiteMessage, type LiteVersion } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { RelayCode } from "../rules/relay-code.js";
import { Harness } from "../testing/harness.test-helpers.js";
import { END_GRACE_MS } from "./subscription-end.js";
import { InboundGroup } from "./inbound-group.js";
import { atLiveEdge, upstream, requests, handlerSub, receiveGroup, frames } from "../testing/upstreams.test-helpers.js";

describe("Upstreams: subscribing on the peer", () => {
  it("writes a SUBSCRIBE on a new bidi stream with the path under the root, the track and the priority", () => {
    const h = new Harness({ root: "room" });
    h.subscribeUpstream("room/cam", "video", 5, atLiveEdge);
    const [stream] = h.io.opened(true);
    expect(requests(h, stream ?? -1)).toEqual([
      { type: "stream_header", kind: "subscribe" },
      { type: "subscribe", id: 0, broadcast: "cam", track: "video", priority: 5, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
    ]);
    expect(h.handlers.get(stream ?? -1)?.kind).toBe("upstream");
    expect(h.upstreams.count).toBe(1);
  });

  it("gives each subscription a fresh id", () => {
    const h = new Harness();
    h.subscribeUpstream("cam", "video", 0, atLiveEdge);
    h.subscribeUpstream("cam", "audio", 0, atLiveEdge);
    const ids = h.io.opened(true).map((stream) => requests(h, stream).find((m) => m.type === "subscribe"));
    expect(ids.map((m) => (m?.type === "subscribe" ? m.id : -1))).toEqual([0, 1]);
  });

  it("places the copy before the SUBSCRIBE is written, and the SUBSCRIBE carries the start group", () => {
    const h = new Harness();
    let writtenBeforePlace = -1;
    const up = h.subscribeUpstream("cam", "video", 0, () => {
      writtenBeforePlace = h.io.log.filter((c) => c.op === "write").length;
      return { group: 4, frame: 0 };
    });
    const [stream] = h.io.opened(true);
    expect(writtenBeforePlace).toBe(0);
    expect(requests(h, stream ?? -1)[1]).toMatchObject({ type: "subscribe", startGroup: 4 });
    expect(up?.track).toBe(handlerSub(h, stream ?? -1).track);
  });

  it("refuses a path outside the session's root without opening a stream or placing a copy", () => {
    const h = new Harness({ root: "room" });
    let placed = false;
    const up = h.subscribeUpstream("elsewhere/cam", "video", 0, () => {
      placed = true;
      return undefined;
    });
    expect(up).toBeUndefined();
    expect(placed).toBe(false);
    expect(h.io.log).toEqual([]);
  });

  it("refuses past maxUpstream", () => {
    const h = new Harness({ limits: { maxUpstream: 1 } });
    expect(h.subscribeUpstream("cam", "video", 0, atLiveEdge)).toBeDefined();
    expect(h.subscribeUpstream("cam", "audio", 0, atLiveEdge)).toBeUndefined();
    expect(h.upstreams.count).toBe(1);
  });

  it("refuses when the peer's stream limit leaves no bidi stream", () => {
    const h = new Harness();
    h.io.bidiLeft = 0;
    expect(h.subscribeUpstream("cam", "video", 0, atLiveEdge)).toBeUndefined();
    expect(h.upstreams.count).toBe(0);
  });

  it("refuses before the version is known and once the session closed", () => {
    const early = new Harness({ version: undefined });
    expect(early.upstreams.subscribe("cam", "video", 0, atLiveEdge)).toBeUndefined();
    const late = new Harness();
    late.closed = true;
    expect(late.upstreams.subscribe("cam", "video", 0, atLiveEdge)).toBeUndefined();
    expect([...early.io.log, ...late.io.log]).toEqual([]);
  });
});

describe("Upstreams: cap and cancel", () => {
  it.each([
    ["lite-03", LITE_03],
    ["lite-04", LITE_04],
    ["lite-05", LITE_05],
  ] as const)("cap writes a SUBSCRIBE_UPDATE with the end group on %s and keeps the subscription", (_name, version: LiteVersion) => {
    const { h, up, stream } = upstream({ version, boundary: { group: 4, frame: 0 } });
    up.cap(6);
    expect(requests(h, stream).slice(2)).toEqual([
      { type: "subscribe_update", priority: 5, ordered: false, maxLatency: 0, startGroup: 4, endGroup: 6 },
    ]);
    expect(h.io.stream(stream).fin).toBe(false);
    expect(up.track.closed).toBe(false);
  });

  it.each([
    ["lite-01", LITE_01],
    ["lite-02", LITE_02],
  ] as const)("cap falls back to cancel on %s: FIN of the SUBSCRIBE stream, no update", (_name, version: LiteVersion) => {
    const { h, up, stream } = upstream({ version });
    up.cap(6);
    expect(requests(h, stream).map((m) => m.type)).toEqual(["stream_header", "subscribe"]);
    expect(h.io.stream(stream).fin).toBe(true);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("cancel FINs the SUBSCRIBE stream once and finishes the copy", () => {
    const { h, up, stream } = upstream();
    up.cancel();
    up.cancel();
    expect(h.io.log.filter((c) => c.op === "write" && c.id === stream && c.fin)).toHaveLength(1);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("cap after cancel writes nothing", () => {
    const { h, up } = upstream();
    up.cancel();
    const calls = h.io.log.length;
    up.cap(3);
    expect(h.io.log.length).toBe(calls);
  });

  it("cap and cancel write nothing once the session closed", () => {
    const { h, up } = upstream();
    h.closed = true;
    const calls = h.io.log.length;
    up.cap(3);
    up.cancel();
    expect(h.io.log.length).toBe(calls);
  });
});

describe("Upstreams: the peer's side of the SUBSCRIBE stream", () => {
  it("a peer reset aborts the copy with the peer's code and resets our side", () => {
    const { h, up, stream } = upstream();
    h.resetUpstream(stream, handlerSub(h, stream), 404, false);
    expect(up.track.terminal()).toEqual({ kind: "aborted", reason: 404 });
    expect(h.io.stream(stream).resets).toEqual([404]);
    expect(h.handlers.has(stream)).toBe(false);
    expect(h.upstreams.count).toBe(0);
  });

  it("a peer STOP_SENDING aborts the copy without resetting back", () => {
    const { h, up, stream } = upstream();
    h.resetUpstream(stream, handlerSub(h, stream), 7, true);
    expect(up.track.terminal()).toEqual({ kind: "aborted", reason: 7 });
    expect(h.io.stream(stream).resets).toEqual([]);
  });

  it("keeps the subscription on a SUBSCRIBE_OK", () => {
    const { h, up, stream, writer } = upstream();
    const ok = writer.encode({ type: "subscribe_ok", priority: 5, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined });
    h.receiveUpstream(stream, handlerSub(h, stream), ok, false);
    expect(up.track.closed).toBe(false);
    expect(h.upstreams.count).toBe(1);
  });

  it("the peer's FIN finishes the copy and FINs our side", () => {
    const { h, up, stream } = upstream();
    h.receiveUpstream(stream, handlerSub(h, stream), new Uint8Array(0), true);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
    expect(h.io.stream(stream).fin).toBe(true);
    expect(h.upstreams.count).toBe(0);
  });

  it("the peer's FIN after our cancel writes nothing more", () => {
    const { h, up, stream } = upstream();
    const sub = handlerSub(h, stream);
    up.cancel();
    const calls = h.io.log.length;
    h.receiveUpstream(stream, sub, new Uint8Array(0), true);
    expect(h.io.log.length).toBe(calls);
  });

  it("a malformed response aborts the copy and refuses the stream with the codec's code", () => {
    const { h, up, stream } = upstream();
    h.receiveUpstream(stream, handlerSub(h, stream), Uint8Array.of(0x3f, 0x00), false);
    const terminal = up.track.terminal();
    if (terminal?.kind !== "aborted") throw new Error("copy not aborted");
    expect(terminal.reason).toBeGreaterThan(0);
    expect(h.io.stream(stream).resets).toEqual([terminal.reason]);
    expect(h.io.stream(stream).stops).toEqual([terminal.reason]);
  });

  it("teardown drops every copy without writing anything", () => {
    const { h, up } = upstream();
    const calls = h.io.log.length;
    h.upstreams.teardown();
    expect(up.track.terminal()).toEqual({ kind: "dropped" });
    expect(h.io.log.length).toBe(calls);
    expect(h.upstreams.count).toBe(0);
  });
});

describe("Upstreams: a lite-05 publisher's SUBSCRIBE_END", () => {
  /** A lite-05 upstream whose publisher answered SUBSCRIBE_START `start`, SUBSCRIBE_END `end` and FIN. */
  function ended(start: number, end: number, extra: LiteMessage[] = []) {
    const u = upstream({ version: LITE_05 });
    const replies = u.writer.encodeAll([{ type: "subscribe_start", group: start }, ...extra, { type: "subscribe_end", group: end }]);
    return { ...u, replies, sub: handlerSub(u.h, u.stream) };
  }

  const group05 = (writer: LiteStreamWriter, sequence: number, values: readonly number[]): Uint8Array =>
    writer.encodeAll([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 0, sequence },
      ...values.map((v): LiteMessage => ({ type: "frame", payload: Uint8Array.of(v), timestamp: v })),
    ]);

  it("tells the origin the group its SUBSCRIBE_START names (where a failover starts if the copy delivered nothing)", () => {
    const u = upstream({ version: LITE_05 });
    const sub = handlerSub(u.h, u.stream);
    expect(u.up.startedAt).toBeUndefined();
    u.h.receiveUpstream(u.stream, sub, u.writer.encodeAll([{ type: "subscribe_start", group: 7 }]), false);
    expect(u.up.startedAt).toBe(7);
    expect(u.up.track.latest).toBeUndefined();
  });

  it("keeps the copy open after the FIN while a group below the end is still arriving, and finishes once it is in", () => {
    const { h, up, stream, writer, replies, sub } = ended(0, 2);
    receiveGroup(h, 2, group05(writer, 0, [1, 2]));
    const half = group05(writer, 1, [3, 4]);
    const open = new InboundGroup(LITE_05);
    h.receiveGroup(6, open, half.subarray(0, half.length - 2), false);
    h.receiveUpstream(stream, sub, replies, true);
    // Our side is FINed at once; the copy waits for group 1.
    expect(h.io.stream(stream).fin).toBe(true);
    expect(up.track.closed).toBe(false);
    h.receiveGroup(6, open, half.subarray(half.length - 2), true);
    expect(h.io.stream(6).stops).toEqual([]);
    expect(frames(up.track, 1)).toEqual([3, 4]);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
    expect(h.upstreams.count).toBe(0);
  });

  it("takes a group below the end whose stream only opens after the FIN", () => {
    const { h, up, stream, writer, replies, sub } = ended(4, 6);
    receiveGroup(h, 2, group05(writer, 4, [1]));
    h.receiveUpstream(stream, sub, replies, true);
    expect(up.track.closed).toBe(false);
    receiveGroup(h, 6, group05(writer, 5, [2, 3]));
    expect(h.io.stream(6).stops).toEqual([]);
    expect(up.track.group(5)?.finished).toBe(true);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("refuses a group at or past the declared end", () => {
    const { h, up, stream, writer, replies, sub } = ended(0, 1);
    h.receiveUpstream(stream, sub, replies, false);
    receiveGroup(h, 2, group05(writer, 1, [1]));
    expect(h.io.stream(2).stops).toEqual([RelayCode.Cancel]);
    expect(up.track.group(1)).toBeUndefined();
  });

  it("counts a reset group and a dropped one as reported", () => {
    const { h, up, stream, writer, replies, sub } = ended(0, 3, [{ type: "subscribe_drop", start: 2, end: 2, error: 0 }]);
    const broken = new InboundGroup(LITE_05);
    h.receiveGroup(2, broken, group05(writer, 0, [1]), false);
    receiveGroup(h, 6, group05(writer, 1, [2]));
    h.receiveUpstream(stream, sub, replies, true);
    expect(up.track.closed).toBe(false);
    broken.reset();
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("finishes at once when everything below the end is in before the FIN, and for an end of 0", () => {
    const whole = ended(0, 1);
    receiveGroup(whole.h, 2, group05(whole.writer, 0, [1]));
    whole.h.receiveUpstream(whole.stream, whole.sub, whole.replies, true);
    expect(whole.up.track.terminal()).toEqual({ kind: "finished" });
    const none = upstream({ version: LITE_05 });
    none.h.receiveUpstream(none.stream, handlerSub(none.h, none.stream), none.writer.encode({ type: "subscribe_end", group: 0 }), true);
    expect(none.up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("gives up on a group that never comes once the grace after the FIN has passed", () => {
    const { h, up, stream, replies, sub } = ended(0, 2);
    h.receiveUpstream(stream, sub, replies, true);
    h.upstreams.tick(1000);
    h.upstreams.tick(1000 + END_GRACE_MS - 1);
    expect(up.track.closed).toBe(false);
    h.upstreams.tick(1000 + END_GRACE_MS);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
    expect(h.upstreams.count).toBe(0);
  });

  it("a cancel while groups are owed finishes the copy without a second FIN", () => {
    const { h, up, stream, replies, sub } = ended(0, 2);
    h.receiveUpstream(stream, sub, replies, true);
    const calls = h.io.log.length;
    up.cancel();
    up.cap(0);
    expect(h.io.log.length).toBe(calls);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });
});

describe("Upstreams: frame-precise continuation on lite-06", () => {
  /** The bytes of a lite-06 group stream carrying frames from index `frameStart`. */
  const group06 = (writer: LiteStreamWriter, sequence: number, frameStart: number, values: readonly number[]): Uint8Array =>
    writer.encodeAll([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 0, sequence, frameStart },
      ...values.map((v): LiteMessage => ({ type: "frame", payload: Uint8Array.of(v), timestamp: v })),
    ]);

  it("asks the new upstream for exactly the frames the relay lacks: the group and the frame it continues at", () => {
    const { h, stream } = upstream({ version: LITE_06, boundary: { group: 3, frame: 2 } });
    expect(requests(h, stream)[1]).toMatchObject({ type: "subscribe", startGroup: 3, startFrame: 2 });
  });

  it("files a stream that starts at that frame from it, skipping nothing", () => {
    const { h, up, writer } = upstream({ version: LITE_06, boundary: { group: 3, frame: 2 } });
    receiveGroup(h, 2, group06(writer, 3, 2, [12, 13]));
    expect(up.track.group(3)?.base).toBe(2);
    expect(frames(up.track, 3)).toEqual([undefined, undefined, 12, 13]);
    expect(up.track.group(3)?.finished).toBe(true);
  });

  it("still skips what a stream repeats when it starts before the frame asked", () => {
    const { h, up, writer } = upstream({ version: LITE_06, boundary: { group: 3, frame: 2 } });
    receiveGroup(h, 2, group06(writer, 3, 1, [11, 12, 13]));
    expect(frames(up.track, 3)).toEqual([undefined, undefined, 12, 13]);
  });

  it("asks from an older incomplete group whole when there is one, and keeps the frame start in a cap", () => {
    const older = upstream({ version: LITE_06, boundary: { group: 3, frame: 2, from: 1 } });
    const asked = requests(older.h, older.stream)[1];
    expect(asked).toMatchObject({ type: "subscribe", startGroup: 1 });
    expect(asked?.type === "subscribe" ? asked.startFrame ?? 0 : -1).toBe(0);
    const capped = upstream({ version: LITE_06, boundary: { group: 3, frame: 2 } });
    capped.up.cap(3);
    expect(requests(capped.h, capped.stream)[2]).toMatchObject({ type: "subscribe_update", startGroup: 3, startFrame: 2, endGroup: 3 });
  });

  it("asks lite-05 for the whole group (it has no frame bounds)", () => {
    const { h, stream } = upstream({ version: LITE_05, boundary: { group: 3, frame: 2 } });
    const asked = requests(h, stream)[1];
    expect(asked).toMatchObject({ type: "subscribe", startGroup: 3 });
    expect(asked?.type === "subscribe" ? asked.startFrame : -1).toBeUndefined();
  });
});
