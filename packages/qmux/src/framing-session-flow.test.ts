import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import type { FramingEvent } from "./events.js";
import type { Frame } from "./frame.js";
import { createFraming } from "./index.js";
import { closedEvent, drainFrames, feed, paramsFrame, pump, streamBytes } from "./framing-session.test-helpers.js";

function server(options: Parameters<typeof createFraming>[1] = { role: "server" }) {
  const s = createFraming("qmux-00", options);
  drainFrames(s);
  return s;
}

function sentData(frames: readonly Frame[], id: number): number {
  return frames.reduce((n, f) => (f.type === "stream" && f.id === id ? n + f.data.length : n), 0);
}

describe("qmux-00 flow control, sending", () => {
  it("never sends beyond the peer's stream credit and reports STREAM_DATA_BLOCKED", () => {
    const s = server();
    feed(s, paramsFrame({ initialMaxStreamDataBidiLocal: 100 }), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(0), fin: false });
    drainFrames(s);
    expect(s.write(0, new Uint8Array(250))).toEqual({ ok: true, accepted: 250, buffered: 150 });
    const { frames } = drainFrames(s);
    expect(sentData(frames, 0)).toBe(100);
    expect(frames).toContainEqual({ type: "stream-data-blocked", id: 0, limit: 100 });
  });

  it("sends the rest when MAX_STREAM_DATA raises the credit", () => {
    const s = server();
    feed(s, paramsFrame({ initialMaxStreamDataBidiLocal: 100 }), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(0), fin: false });
    s.write(0, new Uint8Array(250), true);
    drainFrames(s);
    feed(s, { type: "max-stream-data", id: 0, max: 1000 });
    const { frames } = drainFrames(s);
    expect(sentData(frames, 0)).toBe(150);
    expect(frames.at(-1)).toMatchObject({ type: "stream", id: 0, offset: 100, fin: true });
  });

  it("shares the connection credit between streams and reports DATA_BLOCKED", () => {
    const s = server();
    feed(s, paramsFrame({ initialMaxData: 50 }));
    const a = s.openStream(false);
    const b = s.openStream(false);
    if (!a.ok || !b.ok) throw new Error("open refused");
    s.write(a.streamId, new Uint8Array(40));
    s.write(b.streamId, new Uint8Array(40));
    const { frames } = drainFrames(s);
    expect(sentData(frames, a.streamId) + sentData(frames, b.streamId)).toBe(50);
    expect(frames).toContainEqual({ type: "data-blocked", limit: 50 });
  });

  it("ignores a MAX_DATA that lowers the limit", () => {
    const s = server();
    feed(s, paramsFrame({ initialMaxData: 50 }), { type: "max-data", max: 10 });
    const a = s.openStream(false);
    if (!a.ok) throw new Error("open refused");
    s.write(a.streamId, new Uint8Array(40));
    expect(sentData(drainFrames(s).frames, a.streamId)).toBe(40);
  });

  it("cuts a write short at the buffer cap and reports writable once drained", () => {
    const s = server({ role: "server", maxStreamBuffer: 100 });
    feed(s, paramsFrame({ initialMaxStreamDataUni: 10 }));
    const open = s.openStream(false);
    if (!open.ok) throw new Error("open refused");
    expect(s.write(open.streamId, new Uint8Array(500), true)).toEqual({ ok: true, accepted: 110, buffered: 100 });
    drainFrames(s);
    feed(s, { type: "max-stream-data", id: open.streamId, max: 1000 });
    const { events } = drainFrames(s);
    expect(events).toContainEqual({ kind: "writable", streamId: open.streamId });
    // FIN was not applied to the cut-short write: the stream is still writable.
    expect(s.write(open.streamId, new Uint8Array(1), true)).toMatchObject({ ok: true, accepted: 1 });
  });

  it("delivers everything intact under tight windows without any violation", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ stream: fc.nat({ max: 2 }), size: fc.nat({ max: 3000 }) }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 64, max: 4000 }),
        fc.integer({ min: 32, max: 1500 }),
        (writes, maxData, maxStream) => {
          const params = { initialMaxData: maxData, initialMaxStreamDataBidiLocal: maxStream, initialMaxStreamDataBidiRemote: maxStream, initialMaxStreamDataUni: maxStream };
          const client = createFraming("qmux-00", { role: "client", params, autoConsume: true });
          const srv = createFraming("qmux-00", { role: "server", params, autoConsume: true });
          pump(client, srv);
          const ids: number[] = [];
          for (let i = 0; i < 3; i++) {
            const open = client.openStream(true);
            if (!open.ok) throw new Error("open refused");
            ids.push(open.streamId);
          }
          const expected = ids.map(() => [] as number[]);
          const seen: FramingEvent[] = [];
          const pending = writes.map((w) => ({ ...w, data: Uint8Array.from({ length: w.size }, (_, i) => (i + w.stream) & 0xff) }));
          while (pending.length > 0) {
            const next = pending[0];
            if (next === undefined) break;
            const id = ids[next.stream] ?? 0;
            const result = client.write(id, next.data);
            if (!result.ok) throw new Error(result.reason);
            expected[next.stream]?.push(...next.data.subarray(0, result.accepted));
            next.data = next.data.subarray(result.accepted);
            if (next.data.length === 0) pending.shift();
            const { b } = pump(client, srv);
            seen.push(...b);
          }
          for (const id of ids) client.write(id, new Uint8Array(0), true);
          seen.push(...pump(client, srv).b);
          expect(closedEvent(seen)).toBeUndefined();
          ids.forEach((id, i) => {
            const got = streamBytes(seen, id);
            expect(got.fin).toBe(true);
            expect(Buffer.from(got.bytes).equals(Uint8Array.from(expected[i] ?? []))).toBe(true);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("qmux-00 flow control, receiving", () => {
  it("extends the stream and connection windows as the application consumes", () => {
    const s = server({ role: "server", params: { initialMaxData: 1000, initialMaxStreamDataBidiRemote: 400 } });
    feed(s, paramsFrame(), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(400), fin: false });
    drainFrames(s);
    s.consume(0, 400);
    const { frames } = drainFrames(s);
    expect(frames).toContainEqual({ type: "max-stream-data", id: 0, max: 800 });
    expect(frames).toContainEqual({ type: "max-data", max: 1400 });
  });

  it("grants nothing until the application consumes", () => {
    const s = server({ role: "server", params: { initialMaxStreamDataBidiRemote: 400 } });
    feed(s, paramsFrame(), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(400), fin: false });
    expect(drainFrames(s).frames).toEqual([]);
  });

  it("closes with FLOW_CONTROL_ERROR when the peer exceeds a stream's credit", () => {
    const s = server({ role: "server", params: { initialMaxStreamDataBidiRemote: 10 } });
    feed(s, paramsFrame(), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(11), fin: false });
    const { frames, events } = drainFrames(s);
    expect(closedEvent(events)).toMatchObject({ code: TransportError.FLOW_CONTROL_ERROR, byPeer: false, transport: true });
    expect(frames.at(-1)).toMatchObject({ type: "connection-close", code: TransportError.FLOW_CONTROL_ERROR });
  });

  it("closes with FLOW_CONTROL_ERROR when the peer exceeds the connection credit", () => {
    const s = server({ role: "server", params: { initialMaxData: 15 } });
    feed(
      s,
      paramsFrame(),
      { type: "stream", id: 0, offset: undefined, data: new Uint8Array(10), fin: false },
      { type: "stream", id: 4, offset: undefined, data: new Uint8Array(10), fin: false },
    );
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.FLOW_CONTROL_ERROR);
  });

  it("counts a reset's final size against the credit and releases the unsent part", () => {
    const s = server({ role: "server", params: { initialMaxData: 100 } });
    feed(s, paramsFrame(), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(10), fin: false }, { type: "reset-stream", id: 0, code: 1, finalSize: 90 });
    const { frames, events } = drainFrames(s);
    expect(events).toContainEqual({ kind: "stream-reset", streamId: 0, code: 1 });
    expect(frames).toContainEqual({ type: "max-data", max: 180 });
  });

  it("closes with FLOW_CONTROL_ERROR when a reset's final size exceeds the credit", () => {
    const s = server({ role: "server", params: { initialMaxStreamDataBidiRemote: 50 } });
    feed(s, paramsFrame(), { type: "reset-stream", id: 0, code: 1, finalSize: 51 });
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.FLOW_CONTROL_ERROR);
  });

  it("discards data after STOP_SENDING and releases its credit", () => {
    const s = server({ role: "server", params: { initialMaxData: 100, initialMaxStreamDataBidiRemote: 100 } });
    feed(s, paramsFrame(), { type: "stream", id: 0, offset: undefined, data: new Uint8Array(1), fin: false });
    drainFrames(s);
    s.stopSending(0, 5);
    expect(drainFrames(s).frames).toEqual([{ type: "stop-sending", id: 0, code: 5 }]);
    feed(s, { type: "stream", id: 0, offset: undefined, data: new Uint8Array(99), fin: false });
    const { frames, events } = drainFrames(s);
    expect(events).toEqual([]);
    expect(frames).toContainEqual({ type: "max-data", max: 199 });
  });
});
