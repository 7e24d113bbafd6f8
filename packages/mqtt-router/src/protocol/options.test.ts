import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { limitsOf, resolveOptions, type ProtocolOptions } from "./options.js";

const options = (): ProtocolOptions => ({ clock: new ManualClock(), generateClientId: () => "id", receiveMaximum: 10 });

// Every connection of a server resolves the same options object: sharing the results keeps a few
// hundred bytes per connected client out of memory.
describe("resolved protocol options", () => {
  it("are one object for every connection given the same options", () => {
    const given = options();
    expect(resolveOptions(given)).toBe(resolveOptions(given));
    expect(resolveOptions(given)).not.toBe(resolveOptions(options()));
    expect(resolveOptions(given).receiveMaximum).toBe(10);
  });

  it("give one limits object without overrides and a fresh one with them", () => {
    const resolved = resolveOptions(options());
    expect(limitsOf(resolved)).toBe(limitsOf(resolved));
    const overridden = limitsOf(resolved, { serverKeepAlive: 30 });
    expect(overridden).not.toBe(limitsOf(resolved));
    expect([overridden.serverKeepAlive, overridden.receiveMaximum, limitsOf(resolved).serverKeepAlive]).toEqual([30, 10, undefined]);
  });
});
