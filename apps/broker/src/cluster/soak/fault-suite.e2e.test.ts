// The cluster fault suite, short and with a fixed seed (see fault-suite.ts): three node processes
// and Redis (AOF, appendfsync always) under the takeover churn of 20 ids, two QoS 1 publishers at
// 400 msg/s each and a will watcher, while, one at a time, a node is SIGKILLed and restarted, a
// node is SIGSTOPped past the node timeout, Redis is SIGKILLed and restarted on its AOF file, and
// Redis is SIGSTOPped for about a second. Nothing acknowledged is lost, repeats come only as DUP,
// first copies in order per publisher, no strays, Session Present as the oracle says, each will
// fires as owed. `pnpm soak:cluster` runs it longer, with any seed.
import { describe, expect, it } from "vitest";
import { hasRedis } from "../redis.test-helpers.js";
import type { FaultKind } from "./fault-schedule.js";
import { runFaultSuite } from "./fault-suite.js";
import { formatReport } from "./report-table.js";

const SEED = 4003;
const KINDS: readonly FaultKind[] = ["node-kill", "node-pause", "redis-restart", "redis-pause"];

describe.skipIf(!hasRedis)("cluster fault suite (fixed seed, a node killed, a node paused, Redis restarted, Redis paused)", () => {
  it("every acknowledged message delivered once or as DUP, in order, no strays, Session Present and wills as owed", { timeout: 10 * 60_000 }, async () => {
    const report = await runFaultSuite({ seed: SEED, durationMs: 30_000, kinds: KINDS, faults: KINDS.length });
    const text = formatReport(report, 5);
    console.log(text);
    // Not vacuous: every fault was injected and sessions were owed messages and wills across them.
    expect(report.timeline.events.map((e) => e.kind).sort()).toEqual([...KINDS].sort());
    expect(report.figures.owedChecked).toBeGreaterThan(0);
    expect(report.figures.willsOnce).toBeGreaterThan(0);
    expect(report.violations.map((v) => `${v.kind}: ${v.text}`)).toEqual([]);
  });
});
