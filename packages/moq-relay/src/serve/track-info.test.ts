import { LITE_04, LITE_05, type LiteMessage, type LiteVersion, type TrackInfo } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { Origin } from "../origin/origin.js";
import type { StreamId } from "@handoff/qmux";
import { finished, lite05Peer } from "../testing/lite05-peer.test-helpers.js";
import { RelayCode } from "../rules/relay-code.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";
import { trackInfoMessage } from "./track-info.js";

const INFO: TrackInfo = { type: "track_info", priority: 7, ordered: true, maxLatency: 2500, timescale: 90_000 };

/** A lite-05 publisher (session 1) announcing `cam`. */
function announceCam(origin: Origin, id = 1): TestPeer {
  const peer = lite05Peer(origin, { id });
  const [stream] = peer.opened(true);
  if (stream === undefined) throw new Error("no announce stream");
  peer.write(stream, peer.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
  return peer;
}

/** The TRACK streams the relay opened on `publisher`, with what it asked on each. */
function trackQueries(publisher: TestPeer, version: LiteVersion = LITE_05): { id: StreamId; asked: LiteMessage[] }[] {
  return publisher.opened(true).flatMap((id) => {
    const asked = publisher.decode(id, { role: "accepted-bidi", version });
    return asked[0]?.type === "stream_header" && asked[0].kind === "track" ? [{ id, asked }] : [];
  });
}

function answer(publisher: TestPeer, id: StreamId, info: TrackInfo = INFO): void {
  publisher.write(id, publisher.writer.encode(info), true);
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

  it("falls back to milliseconds rather than the 0 timescale the wire forbids", () => {
    expect(trackInfoMessage({ priority: 0, ordered: false, maxLatencyMs: 0, timescale: 0 }).timescale).toBe(1000);
  });
});

describe("TRACK stream", () => {
  it("asks the publisher for the track's info and forwards its answer, then FIN", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const peer = lite05Peer(origin, { id: 2 });
    const ask = askTrack(peer, "cam");
    expect(ask.replies()).toEqual([]);
    const [query] = trackQueries(publisher);
    if (query === undefined) throw new Error("the publisher was not asked");
    expect(query.asked).toEqual([{ type: "stream_header", kind: "track" }, { type: "track", broadcast: "cam", track: "video" }]);
    answer(publisher, query.id);
    expect(ask.replies()).toEqual([INFO]);
    expect(finished(peer, ask.id)).toBe(true);
    // The relay closes its side of the query once the answer is in.
    expect(finished(publisher, query.id)).toBe(true);
  });

  it("serves later readers from the cache without asking the publisher again", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const first = lite05Peer(origin, { id: 2 });
    askTrack(first, "cam");
    const [query] = trackQueries(publisher);
    if (query === undefined) throw new Error("the publisher was not asked");
    answer(publisher, query.id);
    const later = lite05Peer(origin, { id: 3 });
    expect(askTrack(later, "cam").replies()).toEqual([INFO]);
    expect(trackQueries(publisher)).toHaveLength(1);
  });

  it("shares one query between readers asking at the same time", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const a = askTrack(lite05Peer(origin, { id: 2 }), "cam");
    const b = askTrack(lite05Peer(origin, { id: 3 }), "cam");
    const queries = trackQueries(publisher);
    expect(queries).toHaveLength(1);
    const [query] = queries;
    if (query === undefined) throw new Error("the publisher was not asked");
    answer(publisher, query.id);
    expect(a.replies()).toEqual([INFO]);
    expect(b.replies()).toEqual([INFO]);
  });

  it("resets the reader's stream with the publisher's code when the publisher refuses, and caches nothing", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const peer = lite05Peer(origin, { id: 2 });
    const ask = askTrack(peer, "cam");
    const [query] = trackQueries(publisher);
    if (query === undefined) throw new Error("the publisher was not asked");
    publisher.framing.reset(query.id, 404);
    publisher.pump();
    expect(peer.resets(ask.id)).toEqual([404]);
    expect(origin.trackInfos).toBe(0);
    askTrack(peer, "cam");
    expect(trackQueries(publisher)).toHaveLength(2);
  });

  it("asks the next route when the publisher's session ends before answering", () => {
    const origin = testOrigin();
    const gone = announceCam(origin, 1);
    const standby = announceCam(origin, 5);
    const peer = lite05Peer(origin, { id: 2 });
    const ask = askTrack(peer, "cam");
    // The most recent route is preferred on a tie: the standby is asked first.
    const [first] = trackQueries(standby);
    if (first === undefined) throw new Error("the standby was not asked");
    standby.session.close(0, "gone");
    const [second] = trackQueries(gone);
    if (second === undefined) throw new Error("the other route was not asked");
    answer(gone, second.id);
    expect(ask.replies()).toEqual([INFO]);
  });

  it("resets with not-found when the only publisher leaves before answering", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const peer = lite05Peer(origin, { id: 2 });
    const ask = askTrack(peer, "cam");
    publisher.session.close(0, "gone");
    expect(peer.resets(ask.id)).toEqual([RelayCode.NotFound]);
    expect(peer.session.closed).toBe(false);
  });

  it("answers for a lite-04 publisher, which advertises nothing, with a 5 s window in milliseconds", () => {
    const origin = testOrigin();
    const publisher = new TestPeer(origin, { id: 1, version: LITE_04 });
    const [announce] = publisher.opened(true);
    if (announce === undefined) throw new Error("no announce stream");
    publisher.write(announce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    const peer = lite05Peer(origin, { id: 2 });
    expect(askTrack(peer, "cam").replies()).toEqual([{ type: "track_info", priority: 0, ordered: false, maxLatency: 5000, timescale: 1000 }]);
    expect(trackQueries(publisher, LITE_04)).toEqual([]);
  });

  it("forgets a broadcast's infos when its last publisher leaves", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const peer = lite05Peer(origin, { id: 2 });
    askTrack(peer, "cam");
    const [query] = trackQueries(publisher);
    if (query === undefined) throw new Error("the publisher was not asked");
    answer(publisher, query.id);
    expect(origin.trackInfos).toBe(1);
    publisher.session.close(0, "gone");
    expect(origin.trackInfos).toBe(0);
    const next = announceCam(origin, 6);
    const ask = askTrack(peer, "cam");
    const [again] = trackQueries(next);
    if (again === undefined) throw new Error("the new publisher was not asked");
    answer(next, again.id, { ...INFO, timescale: 48_000 });
    expect(ask.replies()).toEqual([{ ...INFO, timescale: 48_000 }]);
  });

  it("drops the answer for a reader that gave up, and serves the others", () => {
    const origin = testOrigin();
    const publisher = announceCam(origin);
    const quitter = lite05Peer(origin, { id: 2 });
    const gaveUp = askTrack(quitter, "cam");
    quitter.framing.reset(gaveUp.id, 0);
    quitter.pump();
    const [query] = trackQueries(publisher);
    if (query === undefined) throw new Error("the publisher was not asked");
    answer(publisher, query.id);
    expect(gaveUp.replies()).toEqual([]);
    expect(quitter.session.closed).toBe(false);
    expect(askTrack(lite05Peer(origin, { id: 3 }), "cam").replies()).toEqual([INFO]);
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
