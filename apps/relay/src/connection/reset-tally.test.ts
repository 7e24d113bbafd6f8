import { describe, expect, it } from "vitest";
import { CountingStats } from "@handoff/moq-relay/testing";
import { tallyResets } from "./reset-tally.js";

describe("tallyResets", () => {
  it("tallies group resets by code and passes every count on", () => {
    const metrics = new CountingStats();
    const { stats, resets } = tallyResets(metrics);
    stats.groupReset?.(430);
    stats.groupReset?.(430);
    stats.groupReset?.(422);
    stats.skipped();
    stats.incomplete?.();
    stats.group("out");
    expect(metrics.groupsOut).toBe(1);
    expect([...resets]).toEqual([
      [430, 2],
      [422, 1],
    ]);
    expect(metrics.groupResets).toEqual([430, 430, 422]);
    expect([metrics.skips, metrics.incompletes]).toEqual([1, 1]);
  });
});
