// Model-based property test of the cross-node routing protocol (cluster invariant C2): random
// interleavings of node steps — publish on any node, a reader reading on, a batch committing, a
// client connecting clean or resuming on any node (a claim), the new owner's replay, a takeover
// notice, the stream's trim, a node crashing and restarting, a survivor adopting a dead node's
// sessions — run through cluster-model.test-helpers.ts, which applies the product's rules
// (handoff-rules.ts). Every acknowledged message reaches every session incarnation that existed
// when it was appended, once, in per-publisher order, wherever the session moved.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkHistory, CLIENTS, NODES, runCluster, type Step } from "./cluster-model.test-helpers.js";
import { earliestId } from "./stream-id.js";

const node = fc.nat({ max: NODES.length - 1 });
interface Weighted {
  readonly weight: number;
  readonly arbitrary: fc.Arbitrary<Step>;
}
const liveSteps: readonly Weighted[] = [
  { weight: 6, arbitrary: node.map((n): Step => ({ k: "publish", node: n })) },
  { weight: 6, arbitrary: node.map((n): Step => ({ k: "commit", node: n })) },
  { weight: 6, arbitrary: fc.record({ node, count: fc.integer({ min: 1, max: 4 }) }).map((r): Step => ({ k: "read", ...r })) },
  { weight: 3, arbitrary: fc.record({ node, client: fc.nat({ max: CLIENTS.length - 1 }), clean: fc.boolean() }).map((r): Step => ({ k: "connect", ...r })) },
  { weight: 3, arbitrary: node.map((n): Step => ({ k: "settle", node: n })) },
  { weight: 2, arbitrary: node.map((n): Step => ({ k: "notice", node: n })) },
  { weight: 2, arbitrary: fc.constant<Step>({ k: "trim" }) },
];
const crashSteps: readonly Weighted[] = [
  { weight: 1, arbitrary: node.map((n): Step => ({ k: "crash", node: n })) },
  { weight: 1, arbitrary: node.map((n): Step => ({ k: "restart", node: n })) },
  { weight: 1, arbitrary: fc.record({ node, dead: node }).map((r): Step => ({ k: "adopt", ...r })) },
];
const sequences = (kinds: readonly Weighted[]): fc.Arbitrary<Step[]> => fc.array(fc.oneof(...kinds), { minLength: 1, maxLength: 80, size: "max" });
// Bounded by numRuns (HANDOFF_PROPERTY_RUNS for a long sweep); the timeout is a safety net for a
// loaded machine, never a budget.
const RUNS = Number(process.env["HANDOFF_PROPERTY_RUNS"] ?? "") || 3000;
const SAFETY_NET = { timeout: Math.max(10 * 60_000, RUNS * 20) };

describe("the cross-node handoff over random interleavings of node steps", () => {
  it("delivers every acknowledged message to every session that existed when it was appended, once, in order, across moves", SAFETY_NET, () => {
    fc.assert(
      fc.property(sequences(liveSteps), (s) => {
        expect(checkHistory(runCluster(s))).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it("delivers the same across node crashes, restarts and a survivor's adoption of a dead node's sessions", SAFETY_NET, () => {
    fc.assert(
      fc.property(sequences([...liveSteps, ...crashSteps]), (s) => {
        expect(checkHistory(runCluster(s))).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it("finds the loss of issue #40 when the trim is held by the nodes' cursors alone", SAFETY_NET, () => {
    const cursorsOnly = (cursors: Iterable<string>): string | undefined => earliestId(cursors);
    const result = fc.check(
      fc.property(sequences(liveSteps), (s) => checkHistory(runCluster(s, cursorsOnly)).length === 0),
      { numRuns: 3000, seed: 40 },
    );
    expect(result.failed).toBe(true);
  });

  it("finds the loss when a restarted node restores a session it had claimed and not settled without its replay", SAFETY_NET, () => {
    const result = fc.check(
      fc.property(sequences([...liveSteps, ...crashSteps]), (s) => checkHistory(runCluster(s, undefined, false)).length === 0),
      { numRuns: 3000, seed: 40 },
    );
    expect(result.failed).toBe(true);
  });
});
