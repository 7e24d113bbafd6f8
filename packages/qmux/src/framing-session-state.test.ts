import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import type { Frame } from "./frame.js";
import { createFraming } from "./index.js";
import { closedEvent, drainFrames, feed, paramsFrame } from "./framing-session.test-helpers.js";

function ready() {
  const s = createFraming("qmux-00", { role: "server" });
  feed(s, paramsFrame());
  drainFrames(s);
  return s;
}

function closeCode(...frames: Frame[]): number | undefined {
  const s = ready();
  feed(s, ...frames);
  return closedEvent(drainFrames(s).events)?.code;
}

const data = (id: number, extra: Partial<Extract<Frame, { type: "stream" }>> = {}): Frame => ({
  type: "stream",
  id,
  offset: undefined,
  data: Uint8Array.of(1, 2),
  fin: false,
  ...extra,
});

describe("stream state rules", () => {
  it("close with STREAM_STATE_ERROR on data for our own send-only stream", () => {
    const s = ready();
    const uni = s.openStream(false);
    if (!uni.ok) throw new Error("open refused");
    feed(s, data(uni.streamId));
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.STREAM_STATE_ERROR);
  });

  it("close with STREAM_STATE_ERROR on a frame for a stream of ours not opened yet", () => {
    expect(closeCode(data(1))).toBe(TransportError.STREAM_STATE_ERROR);
    expect(closeCode({ type: "max-stream-data", id: 5, max: 10 })).toBe(TransportError.STREAM_STATE_ERROR);
  });

  it("close with STREAM_STATE_ERROR on STOP_SENDING or MAX_STREAM_DATA for a receive-only stream", () => {
    expect(closeCode({ type: "stop-sending", id: 2, code: 0 })).toBe(TransportError.STREAM_STATE_ERROR);
    expect(closeCode({ type: "max-stream-data", id: 2, max: 1 })).toBe(TransportError.STREAM_STATE_ERROR);
  });

  it("ignore late frames for a stream already retired", () => {
    const s = ready();
    feed(s, data(2, { fin: true }), data(2), { type: "reset-stream", id: 2, code: 1, finalSize: 2 });
    const { events } = drainFrames(s);
    expect(closedEvent(events)).toBeUndefined();
    expect(events.filter((e) => e.kind === "stream-data")).toHaveLength(1);
  });

  it("close with FINAL_SIZE_ERROR on data past the final size of a live stream", () => {
    expect(closeCode(data(0, { fin: true }), data(0))).toBe(TransportError.FINAL_SIZE_ERROR);
  });

  it("close with FINAL_SIZE_ERROR when a reset moves a known final size", () => {
    expect(closeCode(data(0, { fin: true }), { type: "reset-stream", id: 0, code: 0, finalSize: 9 })).toBe(TransportError.FINAL_SIZE_ERROR);
  });

  it("accept the zero final size @moq/qmux 0.0.6 puts in every RESET_STREAM", () => {
    const s = ready();
    feed(s, data(0), { type: "reset-stream", id: 0, code: 3, finalSize: 0 });
    const { events } = drainFrames(s);
    expect(events).toContainEqual({ kind: "stream-reset", streamId: 0, code: 3 });
    expect(closedEvent(events)).toBeUndefined();
  });

  it("close with PROTOCOL_VIOLATION on an offset gap, which an ordered carrier cannot produce", () => {
    expect(closeCode(data(0, { offset: 0 }), data(0, { offset: 5 }))).toBe(TransportError.PROTOCOL_VIOLATION);
  });

  it("accept explicit offsets that continue the stream", () => {
    expect(closeCode(data(0, { offset: 0 }), data(0, { offset: 2 }))).toBeUndefined();
  });

  it("close with PROTOCOL_VIOLATION on a frame before the transport parameters", () => {
    const s = createFraming("qmux-00", { role: "server" });
    feed(s, data(0));
    expect(closedEvent(drainFrames(s).events)?.code).toBe(TransportError.PROTOCOL_VIOLATION);
  });

  it("close with PROTOCOL_VIOLATION on a second set of transport parameters", () => {
    expect(closeCode(paramsFrame())).toBe(TransportError.PROTOCOL_VIOLATION);
  });

  it("close with PROTOCOL_VIOLATION on a DATAGRAM, which qmux-00 never negotiates", () => {
    expect(closeCode({ type: "datagram", data: Uint8Array.of(1) })).toBe(TransportError.PROTOCOL_VIOLATION);
  });

  it("report a peer's transport close with its code", () => {
    const s = ready();
    feed(s, { type: "connection-close", code: 0xa, frameType: 0, reason: "bad" });
    expect(closedEvent(drainFrames(s).events)).toEqual({ kind: "closed", code: 0xa, reason: "bad", byPeer: true, transport: true });
  });

  it("refuse writes to unknown, receive-only and finished streams", () => {
    const s = ready();
    feed(s, data(2));
    expect(s.write(99, Uint8Array.of(1))).toEqual({ ok: false, reason: "unknown-stream" });
    expect(s.write(2, Uint8Array.of(1))).toEqual({ ok: false, reason: "not-writable" });
    const uni = s.openStream(false);
    if (!uni.ok) throw new Error("open refused");
    s.write(uni.streamId, Uint8Array.of(1), true);
    expect(s.write(uni.streamId, Uint8Array.of(1))).toMatchObject({ ok: false });
  });
});

describe("leniency the real clients need", () => {
  it("ignores data that follows the peer's own reset (@moq/qmux 0.0.6 can send it)", () => {
    const s = ready();
    const bidi = s.openStream(true);
    if (!bidi.ok) throw new Error("open refused");
    feed(s, { type: "reset-stream", id: 0, code: 1, finalSize: 0 }, data(0), data(0, { fin: true }));
    const { events } = drainFrames(s);
    expect(closedEvent(events)).toBeUndefined();
    expect(events.filter((e) => e.kind === "stream-data")).toEqual([]);
  });
});

describe("in-band application protocol (plain TCP)", () => {
  it("agrees on the server's first choice that the client also offers", () => {
    const s = createFraming("qmux-00", { role: "server", carrier: "stream", params: { applicationProtocols: ["moq-lite-04", "moq-lite-03"] } });
    feed(s, paramsFrame({ applicationProtocols: ["moq-lite-03", "moq-lite-04"] }));
    expect(s.applicationProtocol).toBe("moq-lite-04");
  });

  it("agrees on nothing when the lists do not overlap", () => {
    const s = createFraming("qmux-00", { role: "client", params: { applicationProtocols: ["moq-lite-03"] } });
    feed(s, paramsFrame({ applicationProtocols: ["moq-lite-04"] }));
    expect(s.applicationProtocol).toBeUndefined();
  });
});
