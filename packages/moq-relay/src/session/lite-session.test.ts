import { LITE_02, LITE_04, LiteStreamWriter } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { RelayCode } from "../rules/relay-code.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";
import type { SessionStats } from "../context/stats.js";

function subscribe(id: number, broadcast: string, priority = 0) {
  return {
    type: "subscribe" as const,
    id,
    broadcast,
    track: "video",
    priority,
    ordered: false,
    maxLatency: 0,
    startGroup: undefined,
    endGroup: undefined,
  };
}

describe("LiteSession", () => {
  it("asks a publishing peer for its announces and routes them", () => {
    const origin = testOrigin();
    const peer = new TestPeer(origin);
    const [announceStream] = peer.opened(true);
    if (announceStream === undefined) throw new Error("relay did not ask for announces");
    expect(peer.decode(announceStream, { role: "accepted-bidi", version: LITE_04 })).toEqual([
      { type: "stream_header", kind: "announce" },
      { type: "announce_request", prefix: "", excludeHop: 4242 },
    ]);
    peer.write(announceStream, peer.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [9] }));
    expect(origin.routes("cam").map((r) => r.hops)).toEqual([[9]]);
  });

  it("discards an announce that already went through this relay", () => {
    const origin = testOrigin();
    const peer = new TestPeer(origin);
    const [announceStream] = peer.opened(true);
    if (announceStream === undefined) throw new Error("no announce stream");
    peer.write(announceStream, peer.writer.encode({ type: "announce", status: "active", suffix: "loop", hops: [9, 4242] }));
    expect(origin.broadcasts).toBe(0);
  });

  it("does not ask a peer that may not publish for announces", () => {
    const peer = new TestPeer(testOrigin(), { permissions: { publish: [], subscribe: [""] } });
    expect(peer.opened(true)).toEqual([]);
  });

  it("withdraws a peer's broadcasts when the session closes", () => {
    const origin = testOrigin();
    const peer = new TestPeer(origin);
    const [announceStream] = peer.opened(true);
    if (announceStream === undefined) throw new Error("no announce stream");
    peer.write(announceStream, peer.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    peer.session.close(RelayCode.Cancel, "bye");
    expect(origin.broadcasts).toBe(0);
    expect(peer.closedWith).toEqual({ code: RelayCode.Cancel, reason: "bye" });
  });

  it("answers an announce request with the current set and later changes", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "room/a", hops: [] }));
    const watcher = new TestPeer(origin, { id: 2, permissions: { publish: [], subscribe: [""] } });
    const id = watcher.open([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "room", excludeHop: 0 }]);
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "ended", suffix: "room/a", hops: [] }));
    expect(watcher.decode(id, { role: "opened", kind: "announce", version: LITE_04 })).toEqual([
      { type: "announce", status: "active", suffix: "a", hops: [4242] },
      { type: "announce", status: "ended", suffix: "a", hops: [] },
    ]);
  });

  it("resets a stream of unknown type with the codec's code and keeps the session", () => {
    const peer = new TestPeer(testOrigin());
    const r = peer.framing.openStream(true);
    if (!r.ok) throw new Error("no stream");
    peer.write(r.streamId, Uint8Array.of(0x3f));
    expect(peer.resets(r.streamId)).toEqual([5]);
    expect(peer.session.closed).toBe(false);
  });

  it("resets a subscription to an unknown broadcast with not-found", () => {
    const peer = new TestPeer(testOrigin());
    const id = peer.open([{ type: "stream_header", kind: "subscribe" }, subscribe(0, "nothing")]);
    expect(peer.resets(id)).toEqual([RelayCode.NotFound]);
  });

  it("refuses a subscription outside the peer's grant", () => {
    const peer = new TestPeer(testOrigin(), { permissions: { publish: [], subscribe: ["room"] } });
    const id = peer.open([{ type: "stream_header", kind: "subscribe" }, subscribe(0, "other/x")]);
    expect(peer.resets(id)).toEqual([RelayCode.Unauthorized]);
  });

  it("refuses subscriptions past the per-session limit", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const sub = new TestPeer(origin, { id: 2, limits: { maxSubscriptions: 1 } });
    const first = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(0, "cam")]);
    const second = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(1, "cam")]);
    expect(sub.resets(first)).toEqual([]);
    expect(sub.resets(second)).toEqual([RelayCode.TooMany]);
  });

  it("relays a group from the publisher to the subscriber, frames in order", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const sub = new TestPeer(origin, { id: 2 });
    const subStream = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    const upstream = publisher.opened(true)[1];
    if (upstream === undefined) throw new Error("relay did not subscribe upstream");
    const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
    expect(request).toMatchObject({ type: "subscribe", broadcast: "cam", track: "video" });
    const upstreamId = request?.type === "subscribe" ? request.id : -1;
    const w = new LiteStreamWriter(LITE_04);
    const group = publisher.framing.openStream(false);
    if (!group.ok) throw new Error("no uni stream");
    publisher.write(
      group.streamId,
      w.encodeAll([
        { type: "stream_header", kind: "group" },
        { type: "group", subscribe: upstreamId, sequence: 0 },
        { type: "frame", payload: Uint8Array.of(1), timestamp: undefined },
        { type: "frame", payload: Uint8Array.of(2, 2), timestamp: undefined },
      ]),
      true,
    );
    const [down] = sub.opened(false);
    if (down === undefined) throw new Error("no group stream downstream");
    const messages = sub.decode(down, { role: "accepted-uni", version: LITE_04 });
    expect(messages.slice(1)).toEqual([
      { type: "group", subscribe: 7, sequence: 0 },
      { type: "frame", payload: Uint8Array.of(1), timestamp: undefined },
      { type: "frame", payload: Uint8Array.of(2, 2), timestamp: undefined },
    ]);
    expect(sub.decode(subStream, { role: "opened", kind: "subscribe", version: LITE_04 })[0]).toMatchObject({ type: "subscribe_ok" });
  });

  it("flushes a subscriber once per turn, however many frames the turn brought, and sends a new group's header with its frames", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const deferred: (() => void)[] = [];
    const sub = new TestPeer(origin, { id: 2, defer: (flush) => deferred.push(flush) });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    for (const flush of deferred.splice(0)) flush();
    const track = origin.upstreamCopy("cam", "video");
    if (track === undefined) throw new Error("no shared track");
    const group = track.createGroup(0);
    for (const b of [1, 2, 3]) group.write(Uint8Array.of(b));
    group.finish();
    // The new group's header waits for the turn's one flush, which sends it with the frames.
    expect(sub.opened(false)).toEqual([]);
    expect(deferred).toHaveLength(1);
    for (const flush of deferred.splice(0)) flush();
    const [down] = sub.opened(false);
    if (down === undefined) throw new Error("no group stream downstream");
    expect(sub.decode(down, { role: "accepted-uni", version: LITE_04 }).flatMap((m) => (m.type === "frame" ? [m.payload[0]] : []))).toEqual([1, 2, 3]);
    // Header, frames and FIN left in one STREAM frame.
    expect(sub.events.filter((e) => e.kind === "stream-data" && e.streamId === down)).toHaveLength(1);
  });

  it("writes a held group header at the turn's flush even when no frame came", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const deferred: (() => void)[] = [];
    const sub = new TestPeer(origin, { id: 2, defer: (flush) => deferred.push(flush) });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    for (const flush of deferred.splice(0)) flush();
    const track = origin.upstreamCopy("cam", "video");
    if (track === undefined) throw new Error("no shared track");
    track.createGroup(0);
    expect(sub.opened(false)).toEqual([]);
    for (const flush of deferred.splice(0)) flush();
    const [down] = sub.opened(false);
    if (down === undefined) throw new Error("no group stream downstream");
    expect(sub.decode(down, { role: "accepted-uni", version: LITE_04 }).slice(1)).toEqual([{ type: "group", subscribe: 7, sequence: 0 }]);
  });

  it("skips the oldest group of a subscriber that falls too far behind", () => {
    const origin = testOrigin();
    let skipped = 0;
    const stats: SessionStats = { group: () => undefined, frame: () => undefined, subscription: () => undefined, skipped: () => (skipped += 1) };
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const sub = new TestPeer(origin, { id: 2, limits: { maxOutboundGroups: 1 }, stats });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(0, "cam")]);
    const track = origin.upstreamCopy("cam", "video");
    if (track === undefined) throw new Error("no shared track");
    // Two open groups at once: the limit of one outbound group skips the older.
    track.createGroup(0).write(Uint8Array.of(0));
    track.createGroup(1).write(Uint8Array.of(1));
    expect(skipped).toBe(1);
    expect(sub.resets(sub.opened(false)[0] ?? -1)).toEqual([RelayCode.Skipped]);
  });

  it("aborts a publisher's group past the byte limit, stops its stream and counts it", () => {
    const origin = testOrigin();
    let oversized = 0;
    const stats: SessionStats = {
      group: () => undefined,
      frame: () => undefined,
      subscription: () => undefined,
      skipped: () => undefined,
      oversized: () => (oversized += 1),
    };
    const publisher = new TestPeer(origin, { id: 1, limits: { maxGroupBytes: 4 }, stats });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const sub = new TestPeer(origin, { id: 2 });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    const upstream = publisher.opened(true)[1];
    if (upstream === undefined) throw new Error("relay did not subscribe upstream");
    const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
    const upstreamId = request?.type === "subscribe" ? request.id : -1;
    const group = publisher.framing.openStream(false);
    if (!group.ok) throw new Error("no uni stream");
    const w = new LiteStreamWriter(LITE_04);
    // 3 bytes fit the limit of 4; the next 2 do not.
    publisher.write(
      group.streamId,
      w.encodeAll([
        { type: "stream_header", kind: "group" },
        { type: "group", subscribe: upstreamId, sequence: 0 },
        { type: "frame", payload: Uint8Array.of(1, 1, 1), timestamp: undefined },
        { type: "frame", payload: Uint8Array.of(2, 2), timestamp: undefined },
      ]),
    );
    expect(oversized).toBe(1);
    expect(publisher.events.filter((e) => e.kind === "stop-sending" && e.streamId === group.streamId).map((e) => (e.kind === "stop-sending" ? e.code : -1))).toEqual([
      RelayCode.TooLarge,
    ]);
    expect(origin.upstreamCopy("cam", "video")?.group(0)?.lost).toBe(true);
    const [down] = sub.opened(false);
    expect(sub.resets(down ?? -1)).toHaveLength(1);
  });

  it("keeps a group that stays within the byte limit", () => {
    const origin = testOrigin();
    let oversized = 0;
    const stats: SessionStats = {
      group: () => undefined,
      frame: () => undefined,
      subscription: () => undefined,
      skipped: () => undefined,
      oversized: () => (oversized += 1),
    };
    const publisher = new TestPeer(origin, { id: 1, limits: { maxGroupBytes: 5 }, stats });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const sub = new TestPeer(origin, { id: 2 });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    const upstream = publisher.opened(true)[1];
    if (upstream === undefined) throw new Error("relay did not subscribe upstream");
    const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
    const upstreamId = request?.type === "subscribe" ? request.id : -1;
    const group = publisher.framing.openStream(false);
    if (!group.ok) throw new Error("no uni stream");
    const w = new LiteStreamWriter(LITE_04);
    publisher.write(
      group.streamId,
      w.encodeAll([
        { type: "stream_header", kind: "group" },
        { type: "group", subscribe: upstreamId, sequence: 0 },
        { type: "frame", payload: Uint8Array.of(1, 1, 1), timestamp: undefined },
        { type: "frame", payload: Uint8Array.of(2, 2), timestamp: undefined },
      ]),
      true,
    );
    expect(oversized).toBe(0);
    const [down] = sub.opened(false);
    expect(sub.decode(down ?? -1, { role: "accepted-uni", version: LITE_04 }).slice(2)).toEqual([
      { type: "frame", payload: Uint8Array.of(1, 1, 1), timestamp: undefined },
      { type: "frame", payload: Uint8Array.of(2, 2), timestamp: undefined },
    ]);
  });

  it("opens the higher-priority group first when streams become available", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1 });
    const [pubAnnounce] = publisher.opened(true);
    if (pubAnnounce === undefined) throw new Error("no announce stream");
    publisher.write(pubAnnounce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    // One uni stream at a time: later groups wait for the scheduler.
    const sub = new TestPeer(origin, { id: 2, clientParams: { initialMaxStreamsUni: 1 } });
    const low = { ...subscribe(1, "cam", 1), track: "low" };
    const high = { ...subscribe(2, "cam", 9), track: "high" };
    sub.open([{ type: "stream_header", kind: "subscribe" }, low]);
    sub.open([{ type: "stream_header", kind: "subscribe" }, high]);
    const lowTrack = origin.upstreamCopy("cam", "low");
    const highTrack = origin.upstreamCopy("cam", "high");
    if (lowTrack === undefined || highTrack === undefined) throw new Error("tracks not shared");
    const first = lowTrack.createGroup(0);
    first.write(Uint8Array.of(0));
    lowTrack.createGroup(1).finish();
    // A newer sequence than the waiting low group: only priority puts it first.
    highTrack.createGroup(5).finish();
    expect(sub.opened(false)).toHaveLength(1);
    // The first group ends; its stream retires and the peer grants one more.
    first.finish();
    const order = sub.opened(false).map((id) => {
      const header = sub.decode(id, { role: "accepted-uni", version: LITE_04 })[1];
      return header?.type === "group" ? header.subscribe : -1;
    });
    expect(order.slice(0, 2)).toEqual([1, 2]);
  });

  it("surfaces a GOAWAY from the peer", () => {
    const peer = new TestPeer(testOrigin());
    peer.open([{ type: "stream_header", kind: "goaway" }, { type: "goaway", uri: "https://other/" }]);
    expect(peer.goaways).toEqual(["https://other/"]);
  });

  it("negotiates lite-02 through the in-band SETUP", () => {
    const peer = new TestPeer(testOrigin(), { version: LITE_02, mode: { kind: "setup" } });
    const id = peer.open([]);
    peer.write(id, new LiteStreamWriter(LITE_02).encode({ type: "client_setup", versions: [0xff00000e, LITE_02], parameters: [] }));
    expect(peer.session.version).toBe(LITE_02);
    expect(peer.decode(id, { role: "setup-client" })).toEqual([{ type: "server_setup", version: LITE_02, parameters: [] }]);
  });

  it("closes the session when the SETUP offers no lite version", () => {
    const peer = new TestPeer(testOrigin(), { version: LITE_02, mode: { kind: "setup" } });
    const id = peer.open([]);
    peer.write(id, new LiteStreamWriter(LITE_02).encode({ type: "client_setup", versions: [0xff00000e], parameters: [] }));
    expect(peer.closedWith?.code).toBe(RelayCode.Version);
  });
});
