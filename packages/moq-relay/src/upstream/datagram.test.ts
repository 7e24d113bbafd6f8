import { decodeDatagram, encodeDatagram, LITE_04, LITE_05, type LiteMessage, type LiteVersion } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { Origin } from "../origin/origin.js";
import type { QmuxVersion } from "@handoff/qmux";
import { lite05Peer, uniMessages } from "../testing/lite05-peer.test-helpers.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

/** A lite-05 publisher of `cam` over qmux-01 (datagrams), session 1. */
function publisherOf(origin: Origin): TestPeer {
  const publisher = lite05Peer(origin, { id: 1, qmux: "qmux-01" });
  const [announce] = publisher.opened(true);
  if (announce === undefined) throw new Error("no announce stream");
  publisher.write(announce, publisher.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
  return publisher;
}

/** Subscribes `viewer` to `video` of `cam` with subscribe id 5; returns the relay's upstream subscribe id on `publisher`. */
function subscribe(viewer: TestPeer, publisher: TestPeer): number {
  viewer.open([
    { type: "stream_header", kind: "subscribe" },
    { type: "subscribe", id: 5, broadcast: "cam", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
  ]);
  for (const id of publisher.opened(true)) {
    const request = publisher.decode(id, { role: "accepted-bidi", version: LITE_05 })[1];
    if (request?.type === "subscribe") return request.id;
  }
  throw new Error("relay did not subscribe upstream");
}

function viewerOver(origin: Origin, qmux: QmuxVersion): TestPeer {
  return lite05Peer(origin, { id: 2, qmux });
}

function sendDatagram(publisher: TestPeer, subscribe: number, sequence: number, timestamp: number, payload: number[]): void {
  expect(publisher.framing.sendDatagram(encodeDatagram({ type: "datagram", subscribe, sequence, timestamp, payload: Uint8Array.from(payload) }, LITE_05))).toBe(true);
  publisher.pump();
}

/** The datagrams `peer` received, decoded. */
function datagrams(peer: TestPeer): { subscribe: number; sequence: number; timestamp: number; payload: number[] }[] {
  return peer.events.flatMap((e) => {
    if (e.kind !== "datagram") return [];
    const decoded = decodeDatagram(e.bytes, LITE_05);
    if (!decoded.ok) throw new Error("bad datagram from the relay");
    const { subscribe, sequence, timestamp, payload } = decoded.value;
    return [{ subscribe, sequence, timestamp, payload: [...payload] }];
  });
}

/** The group streams `peer` received: sequence and frame bytes. */
function streamGroups(peer: TestPeer, version: LiteVersion = LITE_05): { sequence: number; frames: number[] }[] {
  return peer.opened(false).flatMap((id) => {
    const msgs: LiteMessage[] = version === LITE_05 ? uniMessages(peer, id) : peer.decode(id, { role: "accepted-uni", version });
    const header = msgs[1];
    if (header?.type !== "group") return [];
    return [{ sequence: header.sequence, frames: msgs.flatMap((m) => (m.type === "frame" ? [m.payload[0] ?? -1] : [])) }];
  });
}

describe("datagrams (lite-05 single-frame groups over qmux DATAGRAM frames)", () => {
  it("forwards a publisher's datagram to a subscriber that takes datagrams, with its subscribe id, sequence and timestamp", () => {
    const origin = testOrigin();
    const publisher = publisherOf(origin);
    const viewer = viewerOver(origin, "qmux-01");
    const upstream = subscribe(viewer, publisher);
    sendDatagram(publisher, upstream, 3, 90_000, [7, 8]);
    sendDatagram(publisher, upstream, 4, 93_000, [9]);
    expect(datagrams(viewer)).toEqual([
      { subscribe: 5, sequence: 3, timestamp: 90_000, payload: [7, 8] },
      { subscribe: 5, sequence: 4, timestamp: 93_000, payload: [9] },
    ]);
    expect(streamGroups(viewer)).toEqual([]);
    expect(origin.cachedTrack("cam", "video")?.fetch(3)?.finished).toBe(true);
  });

  it("sends the group on a stream to a subscriber that takes no datagrams (qmux-00, lite-04)", () => {
    const origin = testOrigin();
    const publisher = publisherOf(origin);
    const viewer = viewerOver(origin, "qmux-00");
    const old = new TestPeer(origin, { id: 3, version: LITE_04 });
    const upstream = subscribe(viewer, publisher);
    old.open([
      { type: "stream_header", kind: "subscribe" },
      { type: "subscribe", id: 5, broadcast: "cam", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
    ]);
    sendDatagram(publisher, upstream, 0, 10, [7]);
    expect(datagrams(viewer)).toEqual([]);
    expect(streamGroups(viewer)).toEqual([{ sequence: 0, frames: [7] }]);
    expect(streamGroups(old, LITE_04)).toEqual([{ sequence: 0, frames: [7] }]);
  });

  it("forwards a subscriber's own stream group as a stream, and drops a datagram for a group already held", () => {
    const origin = testOrigin();
    const publisher = publisherOf(origin);
    const viewer = viewerOver(origin, "qmux-02");
    const upstream = subscribe(viewer, publisher);
    const uni = publisher.framing.openStream(false);
    if (!uni.ok) throw new Error("no uni stream");
    publisher.write(
      uni.streamId,
      publisher.writer.encodeAll([{ type: "stream_header", kind: "group" }, { type: "group", subscribe: upstream, sequence: 0 }, { type: "frame", payload: Uint8Array.of(1), timestamp: 0 }]),
      true,
    );
    sendDatagram(publisher, upstream, 0, 0, [2]);
    expect(streamGroups(viewer)).toEqual([{ sequence: 0, frames: [1] }]);
    expect(datagrams(viewer)).toEqual([]);
  });

  it("ignores a datagram it cannot use (undecodable, unknown subscription) and keeps both sessions up", () => {
    const origin = testOrigin();
    const publisher = publisherOf(origin);
    const viewer = viewerOver(origin, "qmux-01");
    subscribe(viewer, publisher);
    expect(publisher.framing.sendDatagram(Uint8Array.of(0x40))).toBe(true);
    publisher.pump();
    sendDatagram(publisher, 77, 0, 0, [1]);
    expect(datagrams(viewer)).toEqual([]);
    expect([publisher.session.closed, viewer.session.closed]).toEqual([false, false]);
  });
});
