import type { Boundary, Track } from "@handoff/moq-resume";
import { LITE_01, LITE_02, LITE_03, LITE_04, LITE_05, LITE_06, type LiteMessage, LiteStreamWriter, type LiteVersion } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { PlaceCopy } from "../origin/route.js";
import type { StreamId } from "@handoff/qmux";
import { RelayCode } from "./limits.js";
import { Harness, type HarnessOptions } from "./harness.test-helpers.js";
import { END_GRACE_MS } from "./subscription-end.js";
import { InboundGroup } from "./inbound-group.js";
import { UpstreamSubscription } from "./upstream-subscription.js";

const atLiveEdge: PlaceCopy = () => undefined;

/** A harness and one upstream subscription to `video` of `cam`, placed where `boundary` says. */
function upstream(options: HarnessOptions & { readonly boundary?: Boundary } = {}) {
  const h = new Harness(options);
  const placed: Track[] = [];
  const up = h.upstreams.subscribe("cam", "video", 5, (copy) => {
    placed.push(copy);
    return options.boundary;
  });
  if (up === undefined) throw new Error("no upstream subscription");
  const [stream] = h.io.opened(true);
  if (stream === undefined) throw new Error("no SUBSCRIBE stream");
  return { h, up, stream, placed, writer: new LiteStreamWriter(h.version ?? LITE_04) };
}

/** What the relay wrote on its SUBSCRIBE stream, decoded as the peer reads it. */
function requests(h: Harness, stream: StreamId): LiteMessage[] {
  return h.io.messages(stream, { role: "accepted-bidi", version: h.version ?? LITE_04 });
}

function handlerSub(h: Harness, stream: StreamId): UpstreamSubscription {
  const handler = h.handlers.get(stream);
  if (handler?.kind !== "upstream") throw new Error(`no upstream handler on ${String(stream)}`);
  return handler.sub;
}

/** The bytes of a group stream: header for subscription `subscribe`, then one frame per payload. */
function groupBytes(writer: LiteStreamWriter, subscribe: number, sequence: number, frames: readonly Uint8Array[]): Uint8Array {
  return writer.encodeAll([
    { type: "stream_header", kind: "group" },
    { type: "group", subscribe, sequence },
    ...frames.map((payload): LiteMessage => ({ type: "frame", payload, timestamp: undefined })),
  ]);
}

/** Feeds a whole group stream `id` to the harness's upstreams, as dispatch would. */
function receiveGroup(h: Harness, id: StreamId, bytes: Uint8Array, fin = true): InboundGroup {
  const group = new InboundGroup(h.version ?? LITE_04, h.limits.maxGroupBytes);
  h.handlers.set(id, { kind: "group-in", group });
  h.upstreams.receiveGroup(id, group, bytes, fin);
  return group;
}

function frames(track: Track, sequence: number): (number | undefined)[] {
  const group = track.group(sequence);
  if (group === undefined) return [];
  const out: (number | undefined)[] = [];
  for (let i = 0; i < group.frameEnd; i += 1) out.push(group.frame(i)?.[0]);
  return out;
}

const bytes = (...values: number[]): Uint8Array[] => values.map((v) => Uint8Array.of(v));

describe("Upstreams: subscribing on the peer", () => {
  it("writes a SUBSCRIBE on a new bidi stream with the path under the root, the track and the priority", () => {
    const h = new Harness({ root: "room" });
    h.upstreams.subscribe("room/cam", "video", 5, atLiveEdge);
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
    h.upstreams.subscribe("cam", "video", 0, atLiveEdge);
    h.upstreams.subscribe("cam", "audio", 0, atLiveEdge);
    const ids = h.io.opened(true).map((stream) => requests(h, stream).find((m) => m.type === "subscribe"));
    expect(ids.map((m) => (m?.type === "subscribe" ? m.id : -1))).toEqual([0, 1]);
  });

  it("places the copy before the SUBSCRIBE is written, and the SUBSCRIBE carries the start group", () => {
    const h = new Harness();
    let writtenBeforePlace = -1;
    const up = h.upstreams.subscribe("cam", "video", 0, () => {
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
    const up = h.upstreams.subscribe("elsewhere/cam", "video", 0, () => {
      placed = true;
      return undefined;
    });
    expect(up).toBeUndefined();
    expect(placed).toBe(false);
    expect(h.io.log).toEqual([]);
  });

  it("refuses past maxUpstream", () => {
    const h = new Harness({ limits: { maxUpstream: 1 } });
    expect(h.upstreams.subscribe("cam", "video", 0, atLiveEdge)).toBeDefined();
    expect(h.upstreams.subscribe("cam", "audio", 0, atLiveEdge)).toBeUndefined();
    expect(h.upstreams.count).toBe(1);
  });

  it("refuses when the peer's stream limit leaves no bidi stream", () => {
    const h = new Harness();
    h.io.bidiLeft = 0;
    expect(h.upstreams.subscribe("cam", "video", 0, atLiveEdge)).toBeUndefined();
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
    const sub = new UpstreamSubscription(0, 1, LITE_04, "video", 0, 8);
    expect(sub.firstFrame(3)).toBe(0);
    sub.continuation = { group: 3, frame: 2 };
    expect([sub.firstFrame(3), sub.firstFrame(2), sub.firstFrame(4)]).toEqual([2, 0, 0]);
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
    h.upstreams.reset(stream, handlerSub(h, stream), 404, false);
    expect(up.track.terminal()).toEqual({ kind: "aborted", reason: 404 });
    expect(h.io.stream(stream).resets).toEqual([404]);
    expect(h.handlers.has(stream)).toBe(false);
    expect(h.upstreams.count).toBe(0);
  });

  it("a peer STOP_SENDING aborts the copy without resetting back", () => {
    const { h, up, stream } = upstream();
    h.upstreams.reset(stream, handlerSub(h, stream), 7, true);
    expect(up.track.terminal()).toEqual({ kind: "aborted", reason: 7 });
    expect(h.io.stream(stream).resets).toEqual([]);
  });

  it("keeps the subscription on a SUBSCRIBE_OK", () => {
    const { h, up, stream, writer } = upstream();
    const ok = writer.encode({ type: "subscribe_ok", priority: 5, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined });
    h.upstreams.receive(stream, handlerSub(h, stream), ok, false);
    expect(up.track.closed).toBe(false);
    expect(h.upstreams.count).toBe(1);
  });

  it("the peer's FIN finishes the copy and FINs our side", () => {
    const { h, up, stream } = upstream();
    h.upstreams.receive(stream, handlerSub(h, stream), new Uint8Array(0), true);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
    expect(h.io.stream(stream).fin).toBe(true);
    expect(h.upstreams.count).toBe(0);
  });

  it("the peer's FIN after our cancel writes nothing more", () => {
    const { h, up, stream } = upstream();
    const sub = handlerSub(h, stream);
    up.cancel();
    const calls = h.io.log.length;
    h.upstreams.receive(stream, sub, new Uint8Array(0), true);
    expect(h.io.log.length).toBe(calls);
  });

  it("a malformed response aborts the copy and refuses the stream with the codec's code", () => {
    const { h, up, stream } = upstream();
    h.upstreams.receive(stream, handlerSub(h, stream), Uint8Array.of(0x3f, 0x00), false);
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
    h.upstreams.receiveGroup(2, group, all.subarray(0, all.length - 2), false);
    expect(frames(up.track, 0)).toEqual([1]);
    h.upstreams.receiveGroup(2, group, all.subarray(all.length - 2), false);
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

  it("keeps the copy open after the FIN while a group below the end is still arriving, and finishes once it is in", () => {
    const { h, up, stream, writer, replies, sub } = ended(0, 2);
    receiveGroup(h, 2, group05(writer, 0, [1, 2]));
    const half = group05(writer, 1, [3, 4]);
    const open = new InboundGroup(LITE_05);
    h.upstreams.receiveGroup(6, open, half.subarray(0, half.length - 2), false);
    h.upstreams.receive(stream, sub, replies, true);
    // Our side is FINed at once; the copy waits for group 1.
    expect(h.io.stream(stream).fin).toBe(true);
    expect(up.track.closed).toBe(false);
    h.upstreams.receiveGroup(6, open, half.subarray(half.length - 2), true);
    expect(h.io.stream(6).stops).toEqual([]);
    expect(frames(up.track, 1)).toEqual([3, 4]);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
    expect(h.upstreams.count).toBe(0);
  });

  it("takes a group below the end whose stream only opens after the FIN", () => {
    const { h, up, stream, writer, replies, sub } = ended(4, 6);
    receiveGroup(h, 2, group05(writer, 4, [1]));
    h.upstreams.receive(stream, sub, replies, true);
    expect(up.track.closed).toBe(false);
    receiveGroup(h, 6, group05(writer, 5, [2, 3]));
    expect(h.io.stream(6).stops).toEqual([]);
    expect(up.track.group(5)?.finished).toBe(true);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("refuses a group at or past the declared end", () => {
    const { h, up, stream, writer, replies, sub } = ended(0, 1);
    h.upstreams.receive(stream, sub, replies, false);
    receiveGroup(h, 2, group05(writer, 1, [1]));
    expect(h.io.stream(2).stops).toEqual([RelayCode.Cancel]);
    expect(up.track.group(1)).toBeUndefined();
  });

  it("counts a reset group and a dropped one as reported", () => {
    const { h, up, stream, writer, replies, sub } = ended(0, 3, [{ type: "subscribe_drop", start: 2, end: 2, error: 0 }]);
    const broken = new InboundGroup(LITE_05);
    h.upstreams.receiveGroup(2, broken, group05(writer, 0, [1]), false);
    receiveGroup(h, 6, group05(writer, 1, [2]));
    h.upstreams.receive(stream, sub, replies, true);
    expect(up.track.closed).toBe(false);
    broken.reset();
    expect(up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("finishes at once when everything below the end is in before the FIN, and for an end of 0", () => {
    const whole = ended(0, 1);
    receiveGroup(whole.h, 2, group05(whole.writer, 0, [1]));
    whole.h.upstreams.receive(whole.stream, whole.sub, whole.replies, true);
    expect(whole.up.track.terminal()).toEqual({ kind: "finished" });
    const none = upstream({ version: LITE_05 });
    none.h.upstreams.receive(none.stream, handlerSub(none.h, none.stream), none.writer.encode({ type: "subscribe_end", group: 0 }), true);
    expect(none.up.track.terminal()).toEqual({ kind: "finished" });
  });

  it("gives up on a group that never comes once the grace after the FIN has passed", () => {
    const { h, up, stream, replies, sub } = ended(0, 2);
    h.upstreams.receive(stream, sub, replies, true);
    h.upstreams.tick(1000);
    h.upstreams.tick(1000 + END_GRACE_MS - 1);
    expect(up.track.closed).toBe(false);
    h.upstreams.tick(1000 + END_GRACE_MS);
    expect(up.track.terminal()).toEqual({ kind: "finished" });
    expect(h.upstreams.count).toBe(0);
  });

  it("a cancel while groups are owed finishes the copy without a second FIN", () => {
    const { h, up, stream, replies, sub } = ended(0, 2);
    h.upstreams.receive(stream, sub, replies, true);
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
