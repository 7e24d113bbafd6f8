import { concat } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import { qmuxFrameArb } from "./testing/frame-arbitrary.js";
import { MAX_FRAME_SIZE, type Frame } from "./frame.js";
import { encodeQmuxFrame } from "./qmux-codec.js";
import { legacyMessageWire, qmuxMessageWire, qmuxStreamWire } from "./wire.js";
import { pushInPieces } from "./wire.test-helpers.js";

describe("qmux-00 over a byte stream", () => {
  it("yields the same frames however the bytes are split", () => {
    fc.assert(
      fc.property(fc.array(qmuxFrameArb, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (frames, cuts) => {
        expect(pushInPieces(qmuxStreamWire(), concat(frames.map(encodeQmuxFrame)), cuts)).toEqual(frames);
      }),
      { numRuns: 300 },
    );
  });

  it("delivers a long frame trickled one byte at a time exactly once, when complete", () => {
    const frame: Frame = { type: "stream", id: 4, offset: 0, data: new Uint8Array(5000).fill(7), fin: true };
    const bytes = encodeQmuxFrame(frame);
    const wire = qmuxStreamWire();
    const out: Frame[] = [];
    for (let i = 0; i < bytes.length; i++) {
      const { frames, error } = wire.push(bytes.subarray(i, i + 1));
      expect(error).toBeUndefined();
      if (i < bytes.length - 1) expect(frames).toEqual([]);
      out.push(...frames);
    }
    expect(out).toEqual([frame]);
  });

  it("refuses a frame whose header announces more than MAX_FRAME_SIZE", () => {
    const head = encodeQmuxFrame({ type: "stream", id: 0, offset: 0, data: new Uint8Array(MAX_FRAME_SIZE), fin: false });
    expect(qmuxStreamWire().push(head.subarray(0, 10)).error?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses a frame that would exceed MAX_FRAME_SIZE before it is complete", () => {
    const head = encodeQmuxFrame({ type: "stream", id: 0, offset: 0, data: new Uint8Array(MAX_FRAME_SIZE), fin: false });
    const { error } = qmuxStreamWire().push(head.subarray(0, MAX_FRAME_SIZE + 1));
    expect(error?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });
});

describe("qmux-00 over WebSocket messages", () => {
  it("decodes several frames from one message", () => {
    const frames: Frame[] = [{ type: "max-data", max: 9 }, { type: "padding" }, { type: "data-blocked", limit: 3 }];
    expect(qmuxMessageWire().push(concat(frames.map(encodeQmuxFrame)))).toEqual({ frames, error: undefined });
  });

  it("refuses a message longer than MAX_FRAME_SIZE", () => {
    expect(qmuxMessageWire().push(new Uint8Array(MAX_FRAME_SIZE + 1)).error?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses a message that ends inside a frame", () => {
    expect(qmuxMessageWire().push(Uint8Array.of(0x11, 0x04)).error?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });
});

describe("legacy framing over WebSocket messages", () => {
  it("has no flow control and decodes one frame per message", () => {
    const wire = legacyMessageWire();
    expect(wire.flowControl).toBe(false);
    expect(wire.push(Uint8Array.of(0x08, 0x02, 0x61)).frames).toHaveLength(1);
  });
});
