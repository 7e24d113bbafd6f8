import { describe, expect, it } from "vitest";
import { FAULT_KINDS, durationNeededMs, parseFaultKinds, planFaults } from "./fault-schedule.js";

const options = { seed: 7, durationMs: durationNeededMs(8, 1000), kinds: FAULT_KINDS, count: 8, nodes: 3, nodeTimeoutMs: 1000 };

describe("fault schedule", () => {
  it("is the same for the same seed, and another for another seed", () => {
    expect(planFaults(options)).toEqual(planFaults(options));
    expect(planFaults({ ...options, seed: 8 })).not.toEqual(planFaults(options));
  });

  it("has each kind as often as the others, in time order, one per slot", () => {
    const plan = planFaults(options);
    for (const kind of FAULT_KINDS) expect(plan.filter((f) => f.kind === kind)).toHaveLength(2);
    const slot = (options.durationMs - 5000) / 8;
    plan.forEach((f, i) => {
      expect(f.atMs).toBeGreaterThanOrEqual(2000 + i * slot);
      expect(f.atMs + f.holdMs).toBeLessThan(2000 + (i + 1) * slot);
    });
  });

  it("stops a node past the node timeout, and names a node only for node faults", () => {
    for (const f of planFaults(options)) {
      if (f.kind === "node-pause") expect(f.holdMs).toBeGreaterThan(1000);
      expect(f.node === undefined).toBe(f.kind === "redis-restart" || f.kind === "redis-pause");
    }
  });

  it("reads --faults, and refuses an unknown kind", () => {
    expect(parseFaultKinds(undefined)).toEqual(FAULT_KINDS);
    expect(parseFaultKinds("node-kill,redis-pause")).toEqual(["node-kill", "redis-pause"]);
    expect(parseFaultKinds("node-kil")).toMatch(/unknown fault kind "node-kil"/);
  });
});
