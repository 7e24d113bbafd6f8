import { chunked } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeStream, LiteStreamReader } from "./stream-reader.js";
import { LiteStreamWriter } from "./stream-writer.js";
import { streamCases, type StreamCase } from "./arbitraries.test-helpers.js";
import { LITE_VERSIONS, liteVersionName, type LiteVersion } from "./version.js";

function encodeCase(v: LiteVersion, c: StreamCase): Uint8Array {
  const options = c.setupFraming === undefined ? {} : { setupFraming: c.setupFraming };
  return new LiteStreamWriter(v, options).encodeAll(c.messages);
}

describe.each(LITE_VERSIONS.map((v) => [liteVersionName(v), v] as const))("%s streams", (_name, v) => {
  const cases = streamCases(v);

  it("decode to exactly the messages that were encoded, for every stream shape", () => {
    fc.assert(
      fc.property(fc.oneof(...cases), (c) => {
        const { messages, error } = decodeStream([encodeCase(v, c)], c.options);
        expect(error).toBeUndefined();
        expect(messages).toEqual(c.messages);
      }),
      { numRuns: 400 },
    );
  });

  it("decode to the same messages however the bytes are split into chunks", () => {
    fc.assert(
      fc.property(
        fc.oneof(...cases).chain((c) => {
          const bytes = encodeCase(v, c);
          return fc.tuple(fc.constant(c), chunked(bytes));
        }),
        ([c, chunks]) => {
          const { messages, error } = decodeStream(chunks, c.options);
          expect(error).toBeUndefined();
          expect(messages).toEqual(c.messages);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("yield messages as soon as they are complete when fed one byte at a time", () => {
    fc.assert(
      fc.property(fc.oneof(...cases), (c) => {
        const bytes = encodeCase(v, c);
        const reader = new LiteStreamReader(c.options);
        const seen = [];
        for (const b of bytes) {
          reader.push(Uint8Array.of(b));
          const { messages, status } = reader.drain();
          seen.push(...messages);
          expect(status.kind).toBe("need_more");
        }
        expect(seen).toEqual(c.messages);
        reader.end();
        expect(reader.next().kind).toBe("end");
      }),
      { numRuns: 100 },
    );
  });
});
