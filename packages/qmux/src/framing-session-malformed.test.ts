import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import type { Carrier, FramingKind } from "./events.js";
import { qmuxFrameArb } from "./testing/frame-arbitrary.js";
import { createFraming } from "./index.js";
import { encodeQmuxFrame } from "./qmux-codec.js";
import { closedEvent, drainFrames, feed, paramsFrame } from "./framing-session.test-helpers.js";

const KNOWN_CODES = new Set<number>(Object.values(TransportError));

describe("malformed input", () => {
  it.each<[FramingKind, Carrier]>([
    ["qmux-00", "message"],
    ["qmux-00", "stream"],
    ["qmux-01", "message"],
    ["qmux-02", "message"],
    ["webtransport", "message"],
  ])("never throws out of receive on random bytes (%s over %s)", (kind, carrier) => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 120 }), { maxLength: 6 }), fc.boolean(), (chunks, withParams) => {
        const s = createFraming(kind, { role: "server", carrier });
        if (withParams && kind !== "webtransport") s.receive(encodeQmuxFrame(paramsFrame()));
        for (const chunk of chunks) s.receive(chunk);
        const closed = closedEvent(s.poll());
        if (closed !== undefined && !closed.byPeer) expect(KNOWN_CODES.has(closed.code)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it.each<FramingKind>(["qmux-00", "qmux-02"])("never throws on random valid frames in any order (%s)", (kind) => {
    fc.assert(
      fc.property(fc.array(qmuxFrameArb, { maxLength: 12 }), (frames) => {
        const s = createFraming(kind, { role: "client" });
        feed(s, paramsFrame(), ...frames);
        const closed = closedEvent(s.poll());
        if (closed !== undefined && !closed.byPeer) expect(KNOWN_CODES.has(closed.code)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("answers a truncated frame with CONNECTION_CLOSE FRAME_ENCODING_ERROR (0x1c)", () => {
    const s = createFraming("qmux-00", { role: "server" });
    feed(s, paramsFrame());
    drainFrames(s);
    s.receive(Uint8Array.of(0x11, 0x04));
    const sent = s.poll();
    const close = sent.find((e) => e.kind === "send");
    expect(close?.kind === "send" ? close.bytes[0] : undefined).toBe(0x1c);
    expect(closedEvent(sent)).toMatchObject({ code: TransportError.FRAME_ENCODING_ERROR, byPeer: false, transport: true });
  });

  it("ignores everything once closed", () => {
    const s = createFraming("qmux-00", { role: "server" });
    s.receive(Uint8Array.of(0x1e));
    s.poll();
    s.receive(encodeQmuxFrame(paramsFrame()));
    expect(s.poll()).toEqual([]);
    expect(s.isClosed).toBe(true);
  });
});
