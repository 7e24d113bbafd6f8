import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FramingError, TransportError } from "./errors.js";
import { qmuxFrameArb } from "./testing/frame-arbitrary.js";
import type { Frame } from "./frame.js";
import { decodeQmuxFrame, encodeQmuxFrame } from "./qmux-codec.js";
import { ByteReader } from "./byte-reader.js";

function decodeAll(bytes: Uint8Array, bounded = true) {
  return decodeQmuxFrame(new ByteReader(bytes, 0, bytes.length), bounded);
}

function codeOf(result: unknown): number | undefined {
  return result instanceof FramingError ? result.code : undefined;
}

describe("qmux-00 frame codec", () => {
  it("encodes a STREAM frame of parts as the frame of their joined bytes", () => {
    const parts = [Uint8Array.of(1, 2), new Uint8Array(300).fill(5), Uint8Array.of(3)];
    const joined = Uint8Array.from(parts.flatMap((p) => [...p]));
    const bytes = encodeQmuxFrame({ type: "stream", id: 7, offset: 1000, data: new Uint8Array(0), fin: false, parts });
    expect(bytes).toEqual(encodeQmuxFrame({ type: "stream", id: 7, offset: 1000, data: joined, fin: false }));
    expect(decodeAll(bytes)).toEqual({ type: "stream", id: 7, offset: 1000, data: joined, fin: false });
  });

  it("round-trips every frame type", () => {
    fc.assert(
      fc.property(qmuxFrameArb, (frame) => {
        const bytes = encodeQmuxFrame(frame);
        const reader = new ByteReader(bytes, 0, bytes.length);
        expect(decodeQmuxFrame(reader, false)).toEqual(frame);
        expect(reader.remaining).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it("reports every strict prefix of a frame as short on a byte stream", () => {
    fc.assert(
      fc.property(
        qmuxFrameArb.filter((f) => f.type !== "padding"),
        fc.nat(),
        (frame, cut) => {
          const bytes = encodeQmuxFrame(frame);
          const prefix = bytes.subarray(0, cut % bytes.length);
          expect(decodeAll(prefix, false)).toBe("short");
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never throws on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (bytes, bounded) => {
        const reader = new ByteReader(bytes, 0, bytes.length);
        while (reader.remaining > 0) {
          const result = decodeQmuxFrame(reader, bounded);
          if (result === "short" || result instanceof FramingError) break;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("decodes the STREAM frame @moq/qmux 0.0.6 sends (LEN, no OFF)", () => {
    expect(decodeAll(Uint8Array.of(0x0b, 0x04, 0x02, 0xaa, 0xbb))).toEqual({
      type: "stream",
      id: 4,
      offset: undefined,
      data: Uint8Array.of(0xaa, 0xbb),
      fin: true,
    });
  });

  it("always writes OFF and LEN on STREAM frames, as the reference does", () => {
    const bytes = encodeQmuxFrame({ type: "stream", id: 1, offset: 0, data: Uint8Array.of(9), fin: false });
    expect([...bytes]).toEqual([0x0e, 0x01, 0x00, 0x01, 0x09]);
  });

  it("takes a STREAM frame without LEN to the end of a WebSocket message", () => {
    expect(decodeAll(Uint8Array.of(0x08, 0x00, 1, 2, 3))).toMatchObject({ type: "stream", data: Uint8Array.of(1, 2, 3) });
  });

  it("refuses a STREAM frame without LEN on a byte stream with FRAME_ENCODING_ERROR", () => {
    expect(codeOf(decodeAll(Uint8Array.of(0x08, 0x00, 1), false))).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses an unknown frame type with FRAME_ENCODING_ERROR", () => {
    expect(codeOf(decodeAll(Uint8Array.of(0x1e)))).toBe(TransportError.FRAME_ENCODING_ERROR);
    expect(codeOf(decodeAll(Uint8Array.of(0xc0, 0, 0, 0, 0, 0, 0, 0x99)))).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses MAX_STREAMS above 2^60 with FRAME_ENCODING_ERROR", () => {
    const frame: Frame = { type: "max-streams", bidi: true, max: 2 ** 60 + 2 ** 40 };
    expect(codeOf(decodeAll(encodeQmuxFrame(frame)))).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses a field above 2^53-1 with FRAME_ENCODING_ERROR", () => {
    const bytes = Uint8Array.of(0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    expect(codeOf(decodeAll(bytes))).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("reads an APPLICATION_CLOSE without a frame-type field (RFC 9000 §19.19)", () => {
    expect(decodeAll(Uint8Array.of(0x1d, 0x07, 0x02, 0x68, 0x69))).toEqual({ type: "application-close", code: 7, reason: "hi" });
  });
});
