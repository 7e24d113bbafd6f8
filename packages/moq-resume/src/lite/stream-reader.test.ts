import { describe, expect, it } from "vitest";
import type { LiteError } from "./errors.js";
import { encodeMessage } from "./messages.js";
import { decodeStream, LiteStreamReader, type LiteStreamReaderOptions } from "./stream-reader.js";
import { LiteStreamWriter } from "./stream-writer.js";
import { LITE_03, LITE_04, LITE_05, type LiteVersion } from "./version.js";
import { ByteWriter } from "./writer.js";

function errorOf(chunks: Uint8Array[], options: LiteStreamReaderOptions): LiteError | undefined {
  return decodeStream(chunks, options).error;
}

function summary(err: LiteError | undefined): [number, string, string] | undefined {
  return err === undefined ? undefined : [err.code, err.reason, err.scope];
}

const bidi = (version: LiteVersion): LiteStreamReaderOptions => ({ role: "accepted-bidi", version });
const uni = (version: LiteVersion): LiteStreamReaderOptions => ({ role: "accepted-uni", version });
/** A stream type byte followed by a size-prefixed body. */
const sized = (type: number, body: number[]): Uint8Array => Uint8Array.of(type, body.length, ...body);

describe("LiteStreamReader", () => {
  it("rejects a message body with bytes left over", () => {
    // GOAWAY body: uri "" then one stray byte.
    expect(summary(errorOf([sized(5, [0, 9])], bidi(LITE_04)))).toEqual([5, "long", "stream"]);
  });

  it("rejects a message body that ends before its fields do", () => {
    // SUBSCRIBE whose body stops after the id.
    expect(summary(errorOf([sized(2, [1])], bidi(LITE_04)))).toEqual([5, "short", "stream"]);
  });

  it("rejects a message larger than the limit before buffering its body", () => {
    const reader = new LiteStreamReader({ role: "accepted-bidi", version: LITE_04, limits: { maxMessageSize: 100 } });
    reader.push(Uint8Array.of(2, 0x40, 200));
    expect(reader.drain().status).toMatchObject({ kind: "error", error: { code: 5, reason: "too_large" } });
    expect(reader.buffered).toBe(0);
  });

  it("rejects a frame larger than the frame limit with FrameTooLarge", () => {
    const reader = new LiteStreamReader({ role: "accepted-uni", version: LITE_04, limits: { maxFrameSize: 10 } });
    reader.push(Uint8Array.of(0, 2, 1, 1, 11));
    expect(summary(reader.drain().status.kind === "error" ? reader.error : undefined)).toEqual([27, "too_large", "stream"]);
  });

  it("resets only the stream for an unknown bidi stream type", () => {
    expect(summary(errorOf([Uint8Array.of(9)], bidi(LITE_05)))).toEqual([5, "unknown_type", "stream"]);
  });

  it("answers a known stream type the version does not serve with UnexpectedStream", () => {
    expect(summary(errorOf([Uint8Array.of(3)], bidi(LITE_04)))).toEqual([10, "unexpected_stream", "stream"]);
    expect(summary(errorOf([Uint8Array.of(0)], bidi(LITE_05)))).toEqual([10, "unexpected_stream", "stream"]);
    expect(summary(errorOf([Uint8Array.of(5)], bidi(LITE_03)))).toEqual([10, "unexpected_stream", "stream"]);
    expect(summary(errorOf([Uint8Array.of(1)], uni(LITE_04)))).toEqual([10, "unexpected_stream", "stream"]);
  });

  it("resets only the stream for an unknown uni stream type", () => {
    expect(summary(errorOf([Uint8Array.of(7)], uni(LITE_05)))).toEqual([5, "unknown_type", "stream"]);
  });

  it("treats a second GOAWAY on the same stream as a protocol violation", () => {
    const goaway = encodeMessage({ type: "goaway", uri: "" }, LITE_04);
    expect(summary(errorOf([Uint8Array.of(5), goaway, goaway], bidi(LITE_04)))).toEqual([15, "unexpected_message", "stream"]);
  });

  it("treats a second ANNOUNCE_REQUEST as a protocol violation", () => {
    const req = encodeMessage({ type: "announce_request", prefix: "a", excludeHop: 0 }, LITE_03);
    expect(summary(errorOf([Uint8Array.of(1), req, req], bidi(LITE_03)))).toEqual([15, "unexpected_message", "stream"]);
  });

  it("reports a stream that ends inside a message as truncated", () => {
    expect(summary(errorOf([Uint8Array.of(2, 5, 1)], bidi(LITE_04)))).toEqual([5, "truncated", "stream"]);
  });

  it("reports a stream that ends before a required reply as truncated", () => {
    expect(errorOf([], { role: "opened", kind: "track", version: LITE_05 })?.reason).toBe("truncated");
  });

  it("ends cleanly on an empty stream and on a finished group", () => {
    expect(decodeStream([], uni(LITE_04))).toEqual({ messages: [], error: undefined });
    const group = new LiteStreamWriter(LITE_04).encodeAll([{ type: "stream_header", kind: "group" }, { type: "group", subscribe: 1, sequence: 2 }]);
    expect(decodeStream([group], uni(LITE_04)).error).toBeUndefined();
  });

  it("rejects invalid UTF-8 in a string", () => {
    expect(summary(errorOf([sized(5, [1, 0xff])], bidi(LITE_04)))).toEqual([5, "invalid_utf8", "stream"]);
  });

  it("refuses a varint above 2^53-1 inside a body with a bounds error", () => {
    const body = [0xc0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0];
    expect(summary(errorOf([sized(0, body)], uni(LITE_04)))).toEqual([11, "unsafe_integer", "stream"]);
  });

  it("accepts the restart announce status on lite-05 only", () => {
    const restart = Uint8Array.of(4, 2, 1, 0x61, 0);
    expect(errorOf([restart], { role: "opened", kind: "announce", version: LITE_04 })?.reason).toBe("invalid_value");
    const ok = encodeMessage({ type: "announce_ok", hopId: 1, activeCount: 0 }, LITE_05);
    expect(decodeStream([ok, restart], { role: "opened", kind: "announce", version: LITE_05 }).messages[1]).toEqual({
      type: "announce",
      status: "restart",
      suffix: "a",
      hops: [],
    });
  });

  it("bounds the lite-03 hop count by maxHops", () => {
    const announce = Uint8Array.of(4, 1, 1, 0x61, 33);
    expect(errorOf([announce], { role: "opened", kind: "announce", version: LITE_03 })?.reason).toBe("too_many");
  });

  it("normalises paths it decodes", () => {
    const w = new ByteWriter();
    w.varint(1).sized(() => w.string("//room///alice/").varint(0));
    expect(decodeStream([w.finish()], bidi(LITE_04)).messages[1]).toEqual({ type: "announce_request", prefix: "room/alice", excludeHop: 0 });
  });

  it("refuses a path with more parts than allowed", () => {
    const w = new ByteWriter();
    w.varint(1).sized(() => w.string(new Array(33).fill("p").join("/")));
    expect(errorOf([w.finish()], bidi(LITE_03))?.reason).toBe("too_many");
  });

  it("hands out frame payloads as views into the pushed chunk when a frame fits in one", () => {
    const bytes = new LiteStreamWriter(LITE_04).encodeAll([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 0, sequence: 0 },
      { type: "frame", payload: new Uint8Array(100).fill(7), timestamp: undefined },
    ]);
    const reader = new LiteStreamReader(uni(LITE_04));
    reader.push(bytes);
    const frame = reader.drain().messages[2];
    expect(frame?.type === "frame" ? frame.payload.buffer : undefined).toBe(bytes.buffer);
  });

  it("decodes lite-05 frame timestamps as absolute values from zigzag deltas", () => {
    // deltas: +100, -40 (zigzag 79 → 0x40 0x4f), then a frame size of 0.
    const bytes = Uint8Array.of(0, 2, 0, 0, 0x40, 200, 0, 0x40, 79, 0);
    expect(decodeStream([bytes], uni(LITE_05)).messages.slice(2).map((m) => (m.type === "frame" ? m.timestamp : -1))).toEqual([100, 60]);
  });

  it("refuses a lite-05 timestamp delta that goes below zero", () => {
    expect(errorOf([Uint8Array.of(0, 2, 0, 0, 1, 0)], uni(LITE_05))?.reason).toBe("invalid_value");
  });

  it("refuses a TRACK_INFO with a zero timescale", () => {
    expect(errorOf([Uint8Array.of(4, 0, 0, 0, 0)], { role: "opened", kind: "track", version: LITE_05 })?.reason).toBe("invalid_value");
  });

  it("refuses duplicate SETUP parameters", () => {
    expect(errorOf([Uint8Array.of(1, 7, 2, 1, 1, 1, 1, 1, 2)], uni(LITE_05))?.reason).toBe("duplicate");
  });

  it("makes SETUP exchange failures fatal to the session", () => {
    expect(summary(errorOf([Uint8Array.of(0x21, 0, 0)], { role: "setup-server" }))).toEqual([5, "unknown_type", "session"]);
  });

  it("treats bytes pushed after the end of the stream as a protocol violation", () => {
    const reader = new LiteStreamReader(bidi(LITE_04));
    reader.end();
    reader.push(Uint8Array.of(1));
    expect(reader.next()).toMatchObject({ kind: "error", error: { code: 15 } });
  });

  it("keeps reporting the first error and holds no bytes after it", () => {
    const reader = new LiteStreamReader(bidi(LITE_05));
    reader.push(Uint8Array.of(9, 1, 2, 3));
    const first = reader.next();
    reader.push(Uint8Array.of(1, 2, 3));
    expect(reader.next()).toEqual(first);
    expect(reader.buffered).toBe(0);
  });
});
