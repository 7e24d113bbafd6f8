import { DEFAULT_TRACK_INFO } from "@handoff/moq-resume";
import { LITE_05, type LiteMessage } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { Origin } from "../origin/origin.js";
import { finished, lite05Peer } from "./lite05-peer.js";
import { RelayCode } from "./limits.js";
import type { TestPeer } from "./test-peer.js";
import { testOrigin } from "./test-peer.js";
import { trackInfoMessage } from "./track-info.js";

function announceCam(origin: Origin): TestPeer {
  const peer = lite05Peer(origin, { id: 1 });
  const [stream] = peer.opened(true);
  if (stream === undefined) throw new Error("no announce stream");
  peer.write(stream, peer.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
  return peer;
}

function askTrack(peer: TestPeer, broadcast: string): { id: number; replies: () => LiteMessage[] } {
  const id = peer.open([{ type: "stream_header", kind: "track" }, { type: "track", broadcast, track: "video" }]);
  return { id, replies: () => peer.decode(id, { role: "opened", kind: "track", version: LITE_05 }) };
}

describe("trackInfoMessage", () => {
  it("maps the model's info field by field", () => {
    expect(trackInfoMessage({ priority: 3, ordered: true, maxLatencyMs: 500, timescale: 90_000 })).toEqual({
      type: "track_info",
      priority: 3,
      ordered: true,
      maxLatency: 500,
      timescale: 90_000,
    });
  });

  it("falls back to the default timescale rather than the 0 the wire forbids", () => {
    expect(trackInfoMessage({ ...DEFAULT_TRACK_INFO, timescale: 0 }).timescale).toBe(1000);
  });
});

describe("TRACK stream", () => {
  it("answers a routable broadcast's track with the default info, then FIN", () => {
    const origin = testOrigin();
    announceCam(origin);
    const peer = lite05Peer(origin, { id: 2 });
    const ask = askTrack(peer, "cam");
    expect(ask.replies()).toEqual([{ type: "track_info", priority: 0, ordered: false, maxLatency: 0, timescale: 1000 }]);
    expect(finished(peer, ask.id)).toBe(true);
  });

  it("answers from the shared copy the relay holds", () => {
    const origin = testOrigin();
    announceCam(origin);
    const peer = lite05Peer(origin, { id: 2 });
    peer.open([
      { type: "stream_header", kind: "subscribe" },
      { type: "subscribe", id: 1, broadcast: "cam", track: "video", priority: 9, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
    ]);
    expect(origin.cachedTrack("cam", "video")).toBeDefined();
    expect(askTrack(peer, "cam").replies()).toMatchObject([{ type: "track_info", priority: 9 }]);
  });

  it("resets the stream with not-found for a broadcast nobody announced", () => {
    const peer = lite05Peer(testOrigin());
    const ask = askTrack(peer, "nothing");
    expect(peer.resets(ask.id)).toEqual([RelayCode.NotFound]);
    expect(peer.session.closed).toBe(false);
  });

  it("refuses a broadcast outside the peer's grant", () => {
    const origin = testOrigin();
    announceCam(origin);
    const peer = lite05Peer(origin, { id: 2, permissions: { publish: [], subscribe: ["room"] } });
    expect(peer.resets(askTrack(peer, "cam").id)).toEqual([RelayCode.Unauthorized]);
  });
});
