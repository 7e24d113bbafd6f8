import { chunked } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LiteError } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import { LiteStreamReader, type LiteStreamReaderOptions } from "./stream-reader.js";
import { LiteStreamWriter } from "./stream-writer.js";
import { streamCases } from "./arbitraries.test-helpers.js";
import { LITE_VERSIONS } from "./version.js";

const limits: LiteLimits = {
  maxMessageSize: 64,
  maxFrameSize: 128,
  maxStringLength: 32,
  maxPathLength: 32,
  maxPathParts: 4,
  maxListEntries: 8,
  maxHops: 4,
  maxParameters: 4,
};
// One partial item at most: the largest body plus its type and size varints (and a u8 type).
const BOUND = Math.max(limits.maxMessageSize, limits.maxFrameSize) + 17;

const versions = fc.constantFrom(...LITE_VERSIONS);
const options: fc.Arbitrary<LiteStreamReaderOptions> = fc.oneof(
  versions.chain((version) =>
    fc.oneof(
      fc.constantFrom("accepted-bidi" as const, "accepted-uni" as const).map((role) => ({ role, version, limits })),
      fc
        .constantFrom("announce" as const, "subscribe" as const, "fetch" as const, "probe" as const, "goaway" as const, "track" as const)
        .map((kind) => ({ role: "opened" as const, kind, version, limits })),
    ),
  ),
  fc
    .tuple(fc.constantFrom("setup-server" as const, "setup-client" as const), fc.constantFrom("draft14" as const, "lite" as const))
    .map(([role, framing]) => ({ role, framing, limits })),
);

/** Feeds every chunk, draining after each; checks the decoder never throws and stays bounded. */
function feed(reader: LiteStreamReader, chunks: readonly Uint8Array[]): void {
  for (const chunk of chunks) {
    reader.push(chunk);
    const { status } = reader.drain();
    expect(["need_more", "error"]).toContain(status.kind);
    expect(reader.buffered).toBeLessThanOrEqual(BOUND);
  }
  reader.end();
  const { status } = reader.drain();
  expect(["end", "error"]).toContain(status.kind);
  if (status.kind === "error") {
    expect(status.error).toBeInstanceOf(LiteError);
    // "internal" marks an exception the codec did not mean to raise: a bug, not bad input.
    expect(status.error.reason).not.toBe("internal");
  }
}

describe("fuzzed input", () => {
  it("never makes the reader throw or buffer more than one bounded item, in any chunking", () => {
    fc.assert(
      fc.property(
        options,
        fc.uint8Array({ maxLength: 400 }).chain((bytes) => chunked(bytes)),
        (opts, chunks) => {
          feed(new LiteStreamReader(opts), chunks);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never makes the reader throw on valid streams with random bytes corrupted", () => {
    const corrupted = versions.chain((v) =>
      fc.oneof(...streamCases(v)).chain((c) => {
        const bytes = new LiteStreamWriter(v, c.setupFraming === undefined ? {} : { setupFraming: c.setupFraming }).encodeAll(c.messages);
        return fc
          .array(fc.tuple(fc.nat(Math.max(0, bytes.length - 1)), fc.integer({ min: 0, max: 255 })), { maxLength: 4 })
          .chain((flips) => {
            const copy = bytes.slice();
            for (const [at, value] of flips) copy[at] = value;
            return fc.tuple(fc.constant({ ...c.options, limits }), chunked(copy));
          });
      }),
    );
    fc.assert(
      fc.property(corrupted, ([opts, chunks]) => {
        feed(new LiteStreamReader(opts), chunks);
      }),
      { numRuns: 500 },
    );
  });
});
