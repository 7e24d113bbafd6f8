import type { Segment } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { segmentDemand, sliceDemand } from "./demand.js";

function segment(start: number | undefined, end: number | undefined): Segment<null> {
  return { id: 0, start, end, source: null, kind: "live", replaces: [] };
}

describe("demand", () => {
  it("never turns a boundary into a start request for a live-edge reader", () => {
    expect(sliceDemand({ start: undefined, end: undefined }, segment(7, undefined))).toEqual({ start: undefined, end: undefined });
  });

  it("raises an explicit start to the segment's start and caps the end at the segment's end", () => {
    expect(sliceDemand({ start: 2, end: 20 }, segment(5, 9))).toEqual({ start: 5, end: 9 });
  });

  it("unions readers: the lowest explicit start and no end if any reader has none", () => {
    const demand = segmentDemand(
      [
        { start: undefined, end: 3 },
        { start: 4, end: undefined },
      ],
      segment(0, undefined),
    );
    expect(demand).toEqual({ start: 4, end: undefined });
  });

  it("is undefined when nobody reads", () => {
    expect(segmentDemand([], segment(0, undefined))).toBeUndefined();
  });
});
