import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FramingError, TransportError } from "./errors.js";
import type { Frame } from "./frame.js";
import { decodeLegacyMessage, encodeLegacyFrame } from "./legacy-codec.js";

const int = fc.maxSafeNat();
const legacyFrameArb: fc.Arbitrary<Frame> = fc.oneof(
  fc.record({ type: fc.constant("stream" as const), id: int, offset: fc.constant(undefined), data: fc.uint8Array({ maxLength: 64 }), fin: fc.boolean() }),
  fc.record({ type: fc.constant("reset-stream" as const), id: int, code: int, finalSize: fc.constant(0) }),
  fc.record({ type: fc.constant("stop-sending" as const), id: int, code: int }),
  fc.record({ type: fc.constant("application-close" as const), code: int, reason: fc.string({ maxLength: 30 }) }),
);

describe("legacy webtransport framing", () => {
  it("round-trips stream, reset, stop-sending and close frames", () => {
    fc.assert(
      fc.property(legacyFrameArb, (frame) => {
        const bytes = encodeLegacyFrame(frame);
        if (bytes === undefined) throw new Error("not encodable");
        expect(decodeLegacyMessage(bytes)).toEqual(frame);
      }),
      { numRuns: 1000 },
    );
  });

  it("encodes a STREAM frame of parts as the frame of their joined bytes", () => {
    const bytes = encodeLegacyFrame({ type: "stream", id: 6, offset: undefined, data: new Uint8Array(0), fin: true, parts: [Uint8Array.of(1), Uint8Array.of(2, 3)] });
    expect(bytes).toEqual(encodeLegacyFrame({ type: "stream", id: 6, offset: undefined, data: Uint8Array.of(1, 2, 3), fin: true }));
  });

  it("writes the STREAM layout the @moq/qmux legacy decoder reads", () => {
    const bytes = encodeLegacyFrame({ type: "stream", id: 6, offset: undefined, data: Uint8Array.of(1, 2), fin: true });
    expect([...(bytes ?? [])]).toEqual([0x09, 0x06, 0x01, 0x02]);
  });

  it("sends a transport close as 0x1d, the only close @moq/qmux 0.0.6 understands", () => {
    const bytes = encodeLegacyFrame({ type: "connection-close", code: 7, frameType: 0, reason: "x" });
    expect([...(bytes ?? [])]).toEqual([0x1d, 0x07, 0x78]);
  });

  it("reads a 0x1c close as a transport close", () => {
    expect(decodeLegacyMessage(Uint8Array.of(0x1c, 0x03))).toEqual({ type: "connection-close", code: 3, frameType: 0, reason: "" });
  });

  it("cannot carry flow-control frames", () => {
    expect(encodeLegacyFrame({ type: "max-data", max: 1 })).toBeUndefined();
  });

  it("refuses empty, unknown, truncated and over-long messages with FRAME_ENCODING_ERROR", () => {
    for (const bytes of [new Uint8Array(0), Uint8Array.of(0x30), Uint8Array.of(0x04, 0x01), Uint8Array.of(0x05, 0x01, 0x02, 0x03)]) {
      const result = decodeLegacyMessage(bytes);
      expect(result).toBeInstanceOf(FramingError);
      expect(result instanceof FramingError ? result.code : 0).toBe(TransportError.FRAME_ENCODING_ERROR);
    }
  });

  it("never throws on random messages", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        decodeLegacyMessage(bytes);
      }),
      { numRuns: 1000 },
    );
  });
});
