/**
 * The fault suite's report as text: a table of what was injected and checked, the violations by
 * kind and by the fault they followed, then the first violations of each kind in full.
 * @module
 */
import { FAULT_KINDS } from "./fault-schedule.js";
import type { FaultTimeline } from "./fault-timeline.js";
import { seconds } from "./fault-timeline.js";
import { VIOLATION_KINDS, type Figures, type Violation } from "./history-check.js";

/** What a run did and found. */
export interface FaultSuiteReport {
  readonly seed: number;
  readonly durationMs: number;
  readonly nodeTimeoutMs: number;
  readonly elapsedMs: number;
  readonly timeline: FaultTimeline;
  readonly figures: Figures;
  /** Empty when every guarantee held. */
  readonly violations: readonly Violation[];
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ").trimEnd()).join("\n");
}

const n = (x: number): string => x.toLocaleString("en-US");

/** The table and the details of the first `perKind` violations of each kind. */
export function formatReport(r: FaultSuiteReport, perKind = 10): string {
  const f = r.figures;
  const injected = FAULT_KINDS.map((k) => `${k} ${String(r.timeline.events.filter((e) => e.kind === k).length)}`).join(", ");
  const summary = table([
    ["seed", String(r.seed)],
    ["load", `${seconds(r.durationMs)} (run ${seconds(r.elapsedMs)}), node timeout ${String(r.nodeTimeoutMs)} ms`],
    ["faults injected", `${String(r.timeline.events.length)}: ${injected}`],
    ["messages acknowledged", `${n(f.acknowledged)} of ${n(f.sent)} sent`],
    ["deliveries checked", `${n(f.owedChecked)} owed, ${n(f.copies)} copies received (${n(f.dupCopies)} DUP, ${n(f.routedAfterSubscribe)} routed between CONNECT and SUBSCRIBE)`],
    ["connections", `${n(f.attempts)} attempts: ${n(f.connected)} connected, ${n(f.refused)} refused, ${n(f.uncertain)} uncertain`],
    ["sessions", `${n(f.sessions)} (${n(f.sessionsUnchecked)} not checked for loss after an uncertain attempt)`],
    ["wills", `${n(f.willsOnce)} owed once, ${n(f.willsNever)} owed never, ${n(f.willsAtMostOnce)} at most once; ${n(f.willsFired)} fired`],
  ]);
  // Violations by kind, and by the fault each followed (within the attribution window).
  const columns = [...FAULT_KINDS, "no fault"] as const;
  const header = ["violations", "total", ...columns];
  const rows = VIOLATION_KINDS.map((kind) => {
    const mine = r.violations.filter((v) => v.kind === kind);
    return [kind, String(mine.length), ...columns.map((c) => String(mine.filter((v) => (r.timeline.attribute(v.at)?.kind ?? "no fault") === c).length))];
  });
  const faults = r.timeline.events.map((e) => `  ${e.kind} ${e.target} at ${seconds(e.start)}, back at ${e.end === undefined ? "never" : seconds(e.end)}`);
  const details = VIOLATION_KINDS.flatMap((kind) => {
    const mine = r.violations.filter((v) => v.kind === kind);
    if (mine.length === 0) return [];
    const more = mine.length > perKind ? [`    ... and ${String(mine.length - perKind)} more`] : [];
    return [`  ${kind} (${String(mine.length)}):`, ...mine.slice(0, perKind).map((v) => `    ${v.text}`), ...more];
  });
  return [
    summary,
    "",
    table([header, ...rows]),
    "",
    "faults:",
    ...faults,
    ...(details.length === 0 ? [] : ["", "violations (times since the load started):", ...details]),
    "",
    `${r.violations.length === 0 ? "PASS" : "FAIL"}: ${String(r.violations.length)} violations (seed ${String(r.seed)})`,
  ].join("\n");
}
