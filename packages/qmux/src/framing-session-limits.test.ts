import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import { createFraming } from "./index.js";
import { closedEvent, drainFrames, feed, paramsFrame, pump } from "./framing-session.test-helpers.js";

function server(params: Parameters<typeof createFraming>[1]["params"] = {}) {
  const s = createFraming("qmux-00", { role: "server", params });
  drainFrames(s);
  return s;
}

const open = (id: number, fin = false) => ({ type: "stream" as const, id, offset: undefined, data: Uint8Array.of(1), fin });

describe("stream limits", () => {
  it("close with STREAM_LIMIT_ERROR when the peer opens beyond our limit", () => {
    const s = server({ initialMaxStreamsBidi: 2 });
    feed(s, paramsFrame(), open(0), open(4), open(8));
    const { frames, events } = drainFrames(s);
    expect(closedEvent(events)?.code).toBe(TransportError.STREAM_LIMIT_ERROR);
    expect(frames.at(-1)).toMatchObject({ type: "connection-close", code: TransportError.STREAM_LIMIT_ERROR });
  });

  it("count a skipped lower id as opened, and still accept it later", () => {
    const s = server({ initialMaxStreamsUni: 2 });
    feed(s, paramsFrame(), open(6), open(2));
    const { events } = drainFrames(s);
    expect(events.filter((e) => e.kind === "stream-opened")).toEqual([
      { kind: "stream-opened", streamId: 6, bidi: false },
      { kind: "stream-opened", streamId: 2, bidi: false },
    ]);
    expect(closedEvent(events)).toBeUndefined();
  });

  it("refuse openStream at the peer's limit, send STREAMS_BLOCKED, and recover on MAX_STREAMS", () => {
    const s = server();
    feed(s, paramsFrame({ initialMaxStreamsUni: 1 }));
    expect(s.openStream(false)).toEqual({ ok: true, streamId: 3 });
    expect(s.openStream(false)).toEqual({ ok: false, reason: "stream-limit" });
    expect(drainFrames(s).frames).toContainEqual({ type: "streams-blocked", bidi: false, limit: 1 });
    feed(s, { type: "max-streams", bidi: false, max: 2 });
    expect(drainFrames(s).events).toContainEqual({ kind: "streams-available", bidi: false });
    expect(s.openStream(false)).toEqual({ ok: true, streamId: 7 });
  });

  it("raise MAX_STREAMS as the peer's streams finish", () => {
    const s = server({ initialMaxStreamsUni: 2 });
    feed(s, paramsFrame(), open(2, true), open(6, true));
    const { frames } = drainFrames(s);
    expect(frames.filter((f) => f.type === "max-streams")).toEqual([
      { type: "max-streams", bidi: false, max: 3 },
      { type: "max-streams", bidi: false, max: 4 },
    ]);
    feed(s, open(10), open(14));
    expect(closedEvent(drainFrames(s).events)).toBeUndefined();
  });

  it("keep a bidi stream's slot until both sides are done", () => {
    const s = server({ initialMaxStreamsBidi: 1 });
    feed(s, paramsFrame(), open(0, true));
    expect(drainFrames(s).frames.some((f) => f.type === "max-streams")).toBe(false);
    s.write(0, new Uint8Array(0), true);
    expect(drainFrames(s).frames).toContainEqual({ type: "max-streams", bidi: true, max: 2 });
  });

  it("let a legacy peer open any number of streams one after another within the cap", () => {
    const client = createFraming("webtransport", { role: "client" });
    const legacy = createFraming("webtransport", { role: "server", maxPeerStreams: 2 });
    const seen = [];
    for (let i = 0; i < 10; i++) {
      const o = client.openStream(false);
      if (!o.ok) throw new Error("open refused");
      client.write(o.streamId, Uint8Array.of(1), true);
      seen.push(...pump(client, legacy).b);
    }
    expect(closedEvent(seen)).toBeUndefined();
    expect(seen.filter((e) => e.kind === "stream-opened")).toHaveLength(10);
  });

  it("cap concurrently open peer streams on the legacy framing, which has no MAX_STREAMS", () => {
    const client = createFraming("webtransport", { role: "client" });
    const legacy = createFraming("webtransport", { role: "server", maxPeerStreams: 2 });
    for (let i = 0; i < 3; i++) {
      const o = client.openStream(false);
      if (!o.ok) throw new Error("open refused");
      client.write(o.streamId, Uint8Array.of(1));
    }
    const { b } = pump(client, legacy);
    expect(closedEvent(b)?.code).toBe(TransportError.STREAM_LIMIT_ERROR);
  });
});
