import { LITE_02, LITE_04, LITE_05, type LiteMessage, LiteStreamReader, LiteStreamWriter, type LiteVersion, type Subscribe } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { Origin } from "../origin/origin.js";
import type { StreamId } from "@handoff/qmux";
import { lite05Peer } from "../testing/lite05-peer.test-helpers.js";
import { SubscribeResponder } from "./subscribe-response.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

function subscribe(id: number, broadcast: string, fields: Partial<Subscribe> = {}): Subscribe {
  return { type: "subscribe", id, broadcast, track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined, ...fields };
}

/** A publisher of `cam` (lite-05 unless `legacy`), announced through the relay. */
function camPublisher(origin: Origin, legacy = false): TestPeer {
  const peer = legacy ? new TestPeer(origin, { id: 1, version: LITE_04 }) : lite05Peer(origin, { id: 1 });
  const [stream] = peer.opened(true);
  if (stream === undefined) throw new Error("no announce stream");
  const announce: LiteMessage = { type: "announce", status: "active", suffix: "cam", hops: [] };
  peer.write(stream, peer.writer.encodeAll(legacy ? [announce] : [{ type: "announce_ok", hopId: 0, activeCount: 1 }, announce]));
  return peer;
}

/** The id of the relay's upstream SUBSCRIBE on `publisher` (its second bidi stream). */
function upstreamId(publisher: TestPeer, version: LiteVersion = LITE_05): { stream: StreamId; id: number } {
  const stream = publisher.opened(true)[1];
  if (stream === undefined) throw new Error("relay did not subscribe upstream");
  const request = publisher.decode(stream, { role: "accepted-bidi", version })[1];
  if (request?.type !== "subscribe") throw new Error("no SUBSCRIBE");
  return { stream, id: request.id };
}

/** Publishes group `sequence` with `frames` ([payload byte, timestamp]) and FIN. */
function publishGroup(publisher: TestPeer, subscribeId: number, sequence: number, frames: [number, number | undefined][]): void {
  const uni = publisher.framing.openStream(false);
  if (!uni.ok) throw new Error("no uni stream");
  publisher.write(
    uni.streamId,
    publisher.writer.encodeAll([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: subscribeId, sequence },
      ...frames.map(([byte, timestamp]): LiteMessage => ({ type: "frame", payload: Uint8Array.of(byte), timestamp })),
    ]),
    true,
  );
}

function downstreamFrames(sub: TestPeer): LiteMessage[] {
  return sub.opened(false).flatMap((id) => sub.decode(id, { role: "accepted-uni", version: LITE_05 })).filter((m) => m.type === "frame");
}

describe("subscribe responses on lite-05", () => {
  it("answers with SUBSCRIBE_START naming the first group sent, not SUBSCRIBE_OK", () => {
    const origin = testOrigin();
    const publisher = camPublisher(origin);
    const sub = lite05Peer(origin, { id: 2 });
    const stream = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    expect(sub.data.get(stream)).toBeUndefined();
    publishGroup(publisher, upstreamId(publisher).id, 4, [[1, 10]]);
    expect(sub.decode(stream, { role: "opened", kind: "subscribe", version: LITE_05 })).toEqual([{ type: "subscribe_start", group: 4 }]);
  });

  it("answers an explicit start at once", () => {
    const origin = testOrigin();
    camPublisher(origin);
    const sub = lite05Peer(origin, { id: 2 });
    const stream = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam", { startGroup: 2 })]);
    expect(sub.decode(stream, { role: "opened", kind: "subscribe", version: LITE_05 })).toEqual([{ type: "subscribe_start", group: 2 }]);
  });

  it("sends SUBSCRIBE_END one past the last group before FIN when the end cap is reached", () => {
    const origin = testOrigin();
    const publisher = camPublisher(origin);
    const sub = lite05Peer(origin, { id: 2 });
    const stream = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam", { startGroup: 0, endGroup: 1 })]);
    const { id } = upstreamId(publisher);
    publishGroup(publisher, id, 0, [[0, 0]]);
    publishGroup(publisher, id, 1, [[1, 0]]);
    expect(sub.decode(stream, { role: "opened", kind: "subscribe", version: LITE_05 })).toEqual([
      { type: "subscribe_start", group: 0 },
      { type: "subscribe_end", group: 2 },
    ]);
    expect(sub.events.some((e) => e.kind === "stream-data" && e.streamId === stream && e.fin)).toBe(true);
  });

  it("passes a lite-05 publisher's frame timestamps to a lite-05 subscriber unchanged", () => {
    const origin = testOrigin();
    const publisher = camPublisher(origin);
    const sub = lite05Peer(origin, { id: 2 });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    publishGroup(publisher, upstreamId(publisher).id, 0, [[1, 90_000], [2, 93_003], [3, 91_000]]);
    expect(downstreamFrames(sub).map((m) => (m.type === "frame" ? m.timestamp : -1))).toEqual([90_000, 93_003, 91_000]);
  });

  it("gives a lite-05 subscriber timestamp 0 for frames of a lite-04 publisher", () => {
    const origin = testOrigin();
    const publisher = camPublisher(origin, true);
    const sub = lite05Peer(origin, { id: 2 });
    sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    publishGroup(publisher, upstreamId(publisher, LITE_04).id, 0, [[1, undefined], [2, undefined]]);
    expect(downstreamFrames(sub).map((m) => (m.type === "frame" ? m.timestamp : -1))).toEqual([0, 0]);
  });

  it("reads a lite-05 publisher's SUBSCRIBE_START and SUBSCRIBE_END upstream without failing the track", () => {
    const origin = testOrigin();
    const publisher = camPublisher(origin);
    const sub = lite05Peer(origin, { id: 2 });
    const stream = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    const upstream = upstreamId(publisher);
    publisher.write(upstream.stream, publisher.writer.encode({ type: "subscribe_start", group: 0 }));
    publishGroup(publisher, upstream.id, 0, [[1, 5]]);
    publisher.write(upstream.stream, publisher.writer.encode({ type: "subscribe_end", group: 1 }), true);
    expect(publisher.resets(upstream.stream)).toEqual([]);
    expect(sub.resets(stream)).toEqual([]);
    expect(sub.decode(stream, { role: "opened", kind: "subscribe", version: LITE_05 })).toEqual([
      { type: "subscribe_start", group: 0 },
      { type: "subscribe_end", group: 1 },
    ]);
  });

  it("reads a lite-05 publisher's SUBSCRIBE_DROP upstream and keeps the subscription", () => {
    const origin = testOrigin();
    const publisher = camPublisher(origin);
    const sub = lite05Peer(origin, { id: 2 });
    const stream = sub.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7, "cam")]);
    const upstream = upstreamId(publisher);
    publisher.write(upstream.stream, publisher.writer.encode({ type: "subscribe_drop", start: 0, end: 2, error: 0 }));
    publishGroup(publisher, upstream.id, 3, [[1, 5]]);
    expect([publisher.resets(upstream.stream), sub.resets(stream)]).toEqual([[], []]);
    expect(downstreamFrames(sub)).toHaveLength(1);
  });
});

describe("SubscribeResponder.dropped", () => {
  /** A responder on stream 0 whose writes are decoded back into messages. */
  function responder(version: LiteVersion) {
    const written: Uint8Array[] = [];
    const io = {
      open: () => undefined,
      write: (_id: StreamId, bytes: Uint8Array) => {
        written.push(bytes);
        return bytes.length;
      },
      send: (_id: StreamId, bytes: Uint8Array) => {
        written.push(bytes);
      },
      reset: () => undefined,
      stopSending: () => undefined,
    };
    const r = new SubscribeResponder(io, new LiteStreamWriter(version), version, 0, subscribe(1, "cam", { startGroup: 0 }));
    const messages = (): LiteMessage[] => {
      const reader = new LiteStreamReader({ role: "opened", kind: "subscribe", version });
      for (const bytes of written) reader.push(bytes);
      return reader.drain().messages;
    };
    return { r, messages };
  }

  it("sends SUBSCRIBE_DROP for one group on lite-04 and lite-05", () => {
    for (const version of [LITE_04, LITE_05] as const) {
      const { r, messages } = responder(version);
      r.dropped(3, 410);
      expect(messages().at(-1)).toEqual({ type: "subscribe_drop", start: 3, end: 3, error: 410 });
    }
  });

  it("says nothing on lite-02, which has no SUBSCRIBE_DROP", () => {
    const { r, messages } = responder(LITE_02);
    r.accepted();
    r.dropped(3, 410);
    expect(messages().map((m) => m.type)).toEqual(["subscribe_ok"]);
  });
});
