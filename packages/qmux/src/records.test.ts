import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import type { QmuxVersion } from "./events.js";
import type { Frame } from "./frame.js";
import { createFraming } from "./index.js";
import { encodeQmuxFrame } from "./qmux-codec.js";
import { closedEvent, drainFrames, feed, paramsFrame, pump, streamBytes } from "./framing-session.test-helpers.js";
import type { TransportParams } from "./transport-params.js";

function server(version: QmuxVersion, params: Partial<TransportParams> = {}) {
  const s = createFraming(version, { role: "server", autoConsume: true });
  const ours = drainFrames(s).frames;
  feed(s, paramsFrame(params));
  drainFrames(s);
  return { s, ours };
}

const ourParams = (frames: readonly Frame[]): TransportParams => {
  const first = frames[0];
  if (first?.type !== "transport-parameters") throw new Error("parameters were not the first frame");
  return first.params;
};

describe("qmux-01 and qmux-02 over WebSocket", () => {
  it("advertises datagrams on the record versions only, and reset_stream_at on qmux-02 only", () => {
    expect(ourParams(server("qmux-00").ours)).toMatchObject({ maxDatagramFrameSize: 0, resetStreamAt: false });
    expect(ourParams(server("qmux-01").ours)).toMatchObject({ maxDatagramFrameSize: 16_382, resetStreamAt: false, maxRecordSize: 16_382 });
    expect(ourParams(server("qmux-02").ours)).toMatchObject({ maxDatagramFrameSize: 16_382, resetStreamAt: true });
  });

  it("reads several frames from one record and takes an empty record as a no-op", () => {
    const { s } = server("qmux-01");
    const a = encodeQmuxFrame({ type: "stream", id: 2, offset: undefined, data: Uint8Array.of(1), fin: false });
    const b = encodeQmuxFrame({ type: "stream", id: 2, offset: 1, data: Uint8Array.of(2), fin: true });
    const record = new Uint8Array(a.length + b.length);
    record.set(a, 0);
    record.set(b, a.length);
    s.receive(new Uint8Array(0));
    s.receive(record);
    const { events } = drainFrames(s);
    expect(closedEvent(events)).toBeUndefined();
    expect(streamBytes(events, 2)).toEqual({ bytes: Uint8Array.of(1, 2), fin: true });
  });

  it("closes on a record larger than our max_record_size", () => {
    const { s } = server("qmux-02");
    s.receive(encodeQmuxFrame({ type: "stream", id: 2, offset: undefined, data: new Uint8Array(16_400), fin: false }));
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses a peer max_record_size below the minimum with TRANSPORT_PARAMETER_ERROR", () => {
    const s = createFraming("qmux-01", { role: "server" });
    feed(s, paramsFrame({ maxRecordSize: 1200 }));
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
  });

  it("answers QX_PING with a response echoing its sequence", () => {
    const { s } = server("qmux-01");
    feed(s, { type: "ping", response: false, sequence: 7 });
    expect(drainFrames(s).frames).toEqual([{ type: "ping", response: true, sequence: 7 }]);
  });

  it("refuses QX_PING on qmux-00, where it does not exist", () => {
    const { s } = server("qmux-00");
    feed(s, { type: "ping", response: false, sequence: 0 });
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("enforces qmux-02's ping sequence rules and not qmux-01's absence of them", () => {
    const again = (version: QmuxVersion) => {
      const { s } = server(version);
      feed(s, { type: "ping", response: false, sequence: 3 }, { type: "ping", response: false, sequence: 3 });
      return closedEvent(drainFrames(s).events)?.code;
    };
    expect(again("qmux-01")).toBeUndefined();
    expect(again("qmux-02")).toBe(TransportError.PROTOCOL_VIOLATION);
    const { s } = server("qmux-02");
    feed(s, { type: "ping", response: true, sequence: 0 });
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.PROTOCOL_VIOLATION);
  });

  it("pings a quiet peer once per quiet spell, before the idle timeout", () => {
    const { s } = server("qmux-02", { maxIdleTimeout: 30_000 });
    s.tick(0);
    s.tick(9_000);
    expect(drainFrames(s).frames).toEqual([]);
    s.tick(10_000);
    s.tick(15_000);
    expect(drainFrames(s).frames).toEqual([{ type: "ping", response: false, sequence: 0 }]);
    feed(s, { type: "ping", response: true, sequence: 0 });
    s.tick(16_000);
    s.tick(26_000);
    expect(drainFrames(s).frames).toEqual([{ type: "ping", response: false, sequence: 1 }]);
  });

  it("delivers datagrams both ways on qmux-01 and bounds them by the peer's limit", () => {
    const a = createFraming("qmux-01", { role: "server" });
    const b = createFraming("qmux-01", { role: "client" });
    pump(a, b);
    expect(a.maxDatagramPayload).toBe(16_382 - 3);
    expect(a.sendDatagram(Uint8Array.of(9, 8))).toBe(true);
    expect(a.sendDatagram(new Uint8Array(a.maxDatagramPayload + 1))).toBe(false);
    const { b: seen } = pump(a, b);
    expect(seen).toEqual([{ kind: "datagram", bytes: Uint8Array.of(9, 8) }]);
  });

  it("sends no datagram on qmux-00", () => {
    const a = createFraming("qmux-00", { role: "server" });
    const b = createFraming("qmux-00", { role: "client" });
    pump(a, b);
    expect(a.sendDatagram(Uint8Array.of(1))).toBe(false);
  });

  it("makes QX_TRANSPORT_PARAMETERS strictly the first frame on qmux-02, a close included", () => {
    const first = (version: QmuxVersion) => {
      const s = createFraming(version, { role: "server" });
      feed(s, { type: "application-close", code: 0, reason: "bye" });
      return closedEvent(drainFrames(s).events);
    };
    expect(first("qmux-01")).toMatchObject({ byPeer: true });
    expect(first("qmux-02")).toMatchObject({ byPeer: false, code: TransportError.PROTOCOL_VIOLATION });
  });

  it("delivers RESET_STREAM_AT's reliable bytes before resetting the stream", () => {
    const { s } = server("qmux-02");
    feed(
      s,
      { type: "stream", id: 2, offset: undefined, data: Uint8Array.of(1, 2), fin: false },
      { type: "reset-stream-at", id: 2, code: 5, finalSize: 6, reliableSize: 4 },
    );
    expect(drainFrames(s).events.filter((e) => e.kind === "stream-reset")).toEqual([]);
    feed(s, { type: "stream", id: 2, offset: 2, data: Uint8Array.of(3, 4, 5), fin: false });
    const { events } = drainFrames(s);
    expect(streamBytes(events, 2).bytes).toEqual(Uint8Array.of(3, 4));
    expect(events.filter((e) => e.kind === "stream-reset")).toEqual([{ kind: "stream-reset", streamId: 2, code: 5 }]);
  });

  it("resets at once when RESET_STREAM_AT's reliable bytes are already in", () => {
    const { s } = server("qmux-02");
    feed(
      s,
      { type: "stream", id: 2, offset: undefined, data: Uint8Array.of(1, 2), fin: false },
      { type: "reset-stream-at", id: 2, code: 5, finalSize: 2, reliableSize: 1 },
    );
    expect(drainFrames(s).events.filter((e) => e.kind === "stream-reset")).toHaveLength(1);
  });

  it("refuses RESET_STREAM_AT on qmux-01, which never advertises it", () => {
    const { s } = server("qmux-01");
    feed(s, { type: "reset-stream-at", id: 2, code: 5, finalSize: 2, reliableSize: 1 });
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.PROTOCOL_VIOLATION);
  });
});
