import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBidi, isServerInitiated, makeStreamId, streamIndex } from "./stream-id.js";

describe("stream ids", () => {
  it("number the first streams of each kind 0, 1, 2 and 3", () => {
    expect([makeStreamId(0, true, false), makeStreamId(0, true, true), makeStreamId(0, false, false), makeStreamId(0, false, true)]).toEqual([0, 1, 2, 3]);
  });

  it("recover index, direction and initiator from the id", () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 50 }), fc.boolean(), fc.boolean(), (index, bidi, server) => {
        const id = makeStreamId(index, bidi, server);
        expect([streamIndex(id), isBidi(id), isServerInitiated(id)]).toEqual([index, bidi, server]);
      }),
      { numRuns: 500 },
    );
  });
});
