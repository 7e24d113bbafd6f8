import { LITE_05, type LiteMessage } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { StreamId } from "@handoff/qmux";
import { finished, lite05Peer, uniMessages } from "../testing/lite05-peer.test-helpers.js";
import { type TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

/** A lite-05 publisher of `cam`, a viewer subscribed to `video` from group 0, and the relay's upstream SUBSCRIBE. */
function relayed() {
  const origin = testOrigin();
  const publisher = lite05Peer(origin, { id: 1 });
  const [announce] = publisher.opened(true);
  if (announce === undefined) throw new Error("no announce stream");
  publisher.write(announce, publisher.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
  const viewer = lite05Peer(origin, { id: 2 });
  const served = viewer.open([
    { type: "stream_header", kind: "subscribe" },
    { type: "subscribe", id: 3, broadcast: "cam", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: 0, endGroup: undefined },
  ]);
  const upstream = publisher.opened(true)[1];
  if (upstream === undefined) throw new Error("relay did not subscribe upstream");
  const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_05 })[1];
  if (request?.type !== "subscribe") throw new Error("no SUBSCRIBE");
  return { publisher, viewer, served, upstream, upstreamId: request.id };
}

/** Opens a group stream on `peer` carrying `frames`; FIN when `fin`. */
function groupStream(peer: TestPeer, subscribe: number, sequence: number, frames: readonly number[], fin: boolean): StreamId {
  const uni = peer.framing.openStream(false);
  if (!uni.ok) throw new Error("no uni stream");
  const messages: LiteMessage[] = [
    { type: "stream_header", kind: "group" },
    { type: "group", subscribe, sequence },
    ...frames.map((f): LiteMessage => ({ type: "frame", payload: Uint8Array.of(f), timestamp: f })),
  ];
  peer.write(uni.streamId, peer.writer.encodeAll(messages), fin);
  return uni.streamId;
}

/** The groups the viewer got: sequence and frame bytes, whether FINed. */
function received(viewer: TestPeer): { sequence: number; frames: number[]; fin: boolean }[] {
  return viewer.opened(false).flatMap((id) => {
    const msgs = uniMessages(viewer, id);
    const header = msgs[1];
    if (header?.type !== "group") return [];
    return [{ sequence: header.sequence, frames: msgs.flatMap((m) => (m.type === "frame" ? [m.payload[0] ?? -1] : [])), fin: finished(viewer, id) }];
  });
}

describe("an upstream SUBSCRIBE_END followed by FIN", () => {
  it("delivers a group below the end that was still arriving, then ends the viewer's subscription with the same end", () => {
    const { publisher, viewer, served, upstream, upstreamId } = relayed();
    groupStream(publisher, upstreamId, 0, [1, 2], true);
    const late = groupStream(publisher, upstreamId, 1, [3], false);
    publisher.write(upstream, publisher.writer.encodeAll([{ type: "subscribe_start", group: 0 }, { type: "subscribe_end", group: 3 }]), true);
    // Group 2's stream opens only after the FIN; group 1 is still open.
    groupStream(publisher, upstreamId, 2, [5], true);
    expect(publisher.events.filter((e) => e.kind === "stop-sending")).toEqual([]);
    expect(finished(viewer, served)).toBe(false);
    publisher.write(late, publisher.writer.encode({ type: "frame", payload: Uint8Array.of(4), timestamp: 4 }), true);
    expect(received(viewer)).toEqual([
      { sequence: 0, frames: [1, 2], fin: true },
      { sequence: 1, frames: [3, 4], fin: true },
      { sequence: 2, frames: [5], fin: true },
    ]);
    const replies = viewer.decode(served, { role: "opened", kind: "subscribe", version: LITE_05 });
    expect(replies).toEqual([
      { type: "subscribe_start", group: 0 },
      { type: "subscribe_end", group: 3 },
    ]);
    expect(finished(viewer, served)).toBe(true);
  });
});
