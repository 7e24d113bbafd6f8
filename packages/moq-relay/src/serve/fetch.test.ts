import { ManualClock } from "@handoff/seqlog";
import { Track } from "@handoff/moq-resume";
import { LITE_05, LITE_06, type LiteMessage, LiteStreamReader } from "@handoff/moq-resume/lite";
import { describe, expect, it, vi } from "vitest";
import type { Origin } from "../origin/origin.js";
import { concatBytes, type StreamId } from "@handoff/qmux";
import { FetchServe } from "./fetch.js";
import { finished, lite05Peer } from "../testing/lite05-peer.test-helpers.js";
import { RelayCode } from "../rules/relay-code.js";
import type { StreamIo } from "../context/stream-io.js";
import type { TestPeer } from "../testing/test-peer.test-helpers.js";
import { testOrigin } from "../testing/test-peer.test-helpers.js";

/** A write's bytes as one buffer (a write may come as parts). */
function joined(data: Uint8Array | readonly Uint8Array[]): Uint8Array {
  return data instanceof Uint8Array ? data : concatBytes(data, data.reduce((n, part) => n + part.length, 0));
}

/** A lite-05 publisher of `cam`, and a subscriber that makes the relay hold its `video` track. */
function heldTrack(origin: Origin): { publisher: TestPeer; upstreamId: number } {
  const publisher = lite05Peer(origin, { id: 1 });
  const [stream] = publisher.opened(true);
  if (stream === undefined) throw new Error("no announce stream");
  publisher.write(stream, publisher.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
  const viewer = lite05Peer(origin, { id: 2 });
  viewer.open([
    { type: "stream_header", kind: "subscribe" },
    { type: "subscribe", id: 0, broadcast: "cam", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: 0, endGroup: undefined },
  ]);
  const upstream = publisher.opened(true)[1];
  if (upstream === undefined) throw new Error("relay did not subscribe upstream");
  const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_05 })[1];
  if (request?.type !== "subscribe") throw new Error("no SUBSCRIBE");
  return { publisher, upstreamId: request.id };
}

/** Opens a group stream on the publisher with `frames` ([byte, timestamp]); FIN when `fin`. */
function group(publisher: TestPeer, subscribeId: number, sequence: number, frames: [number, number][], fin: boolean): StreamId {
  const uni = publisher.framing.openStream(false);
  if (!uni.ok) throw new Error("no uni stream");
  const messages: LiteMessage[] = [
    { type: "stream_header", kind: "group" },
    { type: "group", subscribe: subscribeId, sequence },
    ...frames.map(([byte, timestamp]): LiteMessage => ({ type: "frame", payload: Uint8Array.of(byte), timestamp })),
  ];
  publisher.write(uni.streamId, publisher.writer.encodeAll(messages), fin);
  return uni.streamId;
}

function fetchGroup(peer: TestPeer, broadcast: string, sequence: number): { id: StreamId; frames: () => [number, number | undefined][] } {
  const id = peer.open([{ type: "stream_header", kind: "fetch" }, { type: "fetch", broadcast, track: "video", priority: 0, group: sequence }]);
  return {
    id,
    frames: () =>
      peer.decode(id, { role: "opened", kind: "fetch", version: LITE_05 }).flatMap((m) => (m.type === "frame" ? [[m.payload[0] ?? -1, m.timestamp] as [number, number | undefined]] : [])),
  };
}

describe("FETCH stream", () => {
  it("answers a finished group with its frames and timestamps, then FIN", () => {
    const origin = testOrigin();
    const { publisher, upstreamId } = heldTrack(origin);
    group(publisher, upstreamId, 0, [[1, 100], [2, 133]], true);
    const peer = lite05Peer(origin, { id: 3 });
    const fetch = fetchGroup(peer, "cam", 0);
    expect(fetch.frames()).toEqual([[1, 100], [2, 133]]);
    expect(finished(peer, fetch.id)).toBe(true);
  });

  it("lets go of the track at once when its session closes while the group is still open", () => {
    const origin = testOrigin();
    const { publisher, upstreamId } = heldTrack(origin);
    group(publisher, upstreamId, 0, [[1, 0]], false);
    const resume = origin.cachedTrack("cam", "video");
    if (resume === undefined) throw new Error("not held");
    const watch = resume.watch.bind(resume);
    let removed = 0;
    vi.spyOn(resume, "watch").mockImplementation((listener) => {
      const unwatch = watch(listener);
      return () => {
        removed += 1;
        unwatch();
      };
    });
    const peer = lite05Peer(origin, { id: 3 });
    fetchGroup(peer, "cam", 0);
    expect(removed).toBe(0);
    peer.session.close(0, "bye");
    expect(removed).toBe(1);
  });

  it("finishes a fetch larger than the peer's stream credit as the credit comes back", () => {
    const origin = testOrigin();
    const { publisher, upstreamId } = heldTrack(origin);
    group(publisher, upstreamId, 0, [[1, 0], [2, 10], [3, 20], [4, 30]], true);
    // 4 bytes of credit per stream the peer opens: the frames go out a few bytes at a time.
    const peer = lite05Peer(origin, { id: 3, clientParams: { initialMaxStreamDataBidiLocal: 4 } });
    const fetch = fetchGroup(peer, "cam", 0);
    expect(fetch.frames()).toEqual([[1, 0], [2, 10], [3, 20], [4, 30]]);
    expect(finished(peer, fetch.id)).toBe(true);
  });

  it("resets with not-found a group the relay does not hold", () => {
    const origin = testOrigin();
    heldTrack(origin);
    const peer = lite05Peer(origin, { id: 3 });
    const fetch = fetchGroup(peer, "cam", 9);
    expect(peer.resets(fetch.id)).toEqual([RelayCode.NotFound]);
  });

  it("streams an open group as its frames arrive and FINs at its end", () => {
    const origin = testOrigin();
    const { publisher, upstreamId } = heldTrack(origin);
    const groupStream = group(publisher, upstreamId, 0, [[1, 0]], false);
    const peer = lite05Peer(origin, { id: 3 });
    const fetch = fetchGroup(peer, "cam", 0);
    expect([fetch.frames(), finished(peer, fetch.id)]).toEqual([[[1, 0]], false]);
    publisher.write(groupStream, publisher.writer.encode({ type: "frame", payload: Uint8Array.of(2), timestamp: 40 }), true);
    expect([fetch.frames(), finished(peer, fetch.id)]).toEqual([[[1, 0], [2, 40]], true]);
  });

  it("resets the fetch of an open group that is lost", () => {
    const origin = testOrigin();
    const { publisher, upstreamId } = heldTrack(origin);
    const groupStream = group(publisher, upstreamId, 0, [[1, 0]], false);
    const peer = lite05Peer(origin, { id: 3 });
    const fetch = fetchGroup(peer, "cam", 0);
    publisher.framing.reset(groupStream, 0);
    publisher.write(groupStream, new Uint8Array(0));
    expect(peer.resets(fetch.id)).toEqual([RelayCode.NotFound]);
  });

  it("refuses a broadcast outside the peer's grant", () => {
    const origin = testOrigin();
    heldTrack(origin);
    const peer = lite05Peer(origin, { id: 3, permissions: { publish: [], subscribe: ["room"] } });
    expect(peer.resets(fetchGroup(peer, "cam", 0).id)).toEqual([RelayCode.Unauthorized]);
  });
});

describe("FetchServe", () => {
  it("keeps what the framing did not take and sends it on the next pump", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const g = track.appendGroup();
    g.write(Uint8Array.of(1, 2, 3), 7);
    g.finish();
    const event = track.subscribe({ start: 0 }).recvGroup();
    if (event.kind !== "group") throw new Error("no group");
    let room = 2;
    const written: Uint8Array[] = [];
    let fin = false;
    const io: StreamIo = {
      open: () => undefined,
      write: (_id, data, f) => {
        const bytes = joined(data);
        const n = Math.min(room, bytes.length);
        room -= n;
        written.push(bytes.slice(0, n));
        if (n === bytes.length && f) fin = true;
        return n;
      },
      send: () => undefined,
      reset: () => undefined,
      stopSending: () => undefined,
    };
    const serve = new FetchServe(io, 0, LITE_05, event.group);
    expect(serve.pump()).toBe("blocked");
    room = 100;
    expect(serve.pump()).toBe("done");
    const reader = new LiteStreamReader({ role: "opened", kind: "fetch", version: LITE_05 });
    for (const chunk of written) reader.push(chunk);
    expect([reader.drain().messages, fin]).toEqual([[{ type: "frame", payload: Uint8Array.of(1, 2, 3), timestamp: 7 }], true]);
  });
});

describe("FETCH frame bounds (lite-06)", () => {
  it("returns exactly the frames from the start frame to the end frame (inclusive), then FIN", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.createGroup(0);
    for (let f = 0; f < 5; f++) group.write(Uint8Array.of(f), f * 10);
    const event = track.subscribe({ start: 0 }).recvGroup();
    if (event.kind !== "group") throw new Error("no group");
    const written: Uint8Array[] = [];
    let fin = false;
    const io: StreamIo = {
      open: () => undefined,
      write: (_id, data, f) => {
        const bytes = joined(data);
        written.push(bytes.slice());
        if (f) fin = true;
        return bytes.length;
      },
      send: () => undefined,
      reset: () => undefined,
      stopSending: () => undefined,
    };
    // The group is still open: the fetch ends at its end frame, not at the group's end.
    const serve = new FetchServe(io, 0, LITE_06, event.group, 1, 3);
    expect(serve.pump()).toBe("done");
    const reader = new LiteStreamReader({ role: "opened", kind: "fetch", version: LITE_06 });
    for (const chunk of written) reader.push(chunk);
    expect(reader.drain().messages.map((m) => (m.type === "frame" ? [m.payload[0], m.timestamp] : []))).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
    expect(fin).toBe(true);
  });
});
