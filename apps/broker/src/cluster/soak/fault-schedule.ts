/**
 * The fault suite's schedule: which faults, against what, when and for how long, drawn from a
 * seed so that a failing run is replayed by its seed. Faults come one at a time: the load window
 * is cut into equal slots, one fault per slot, each starting early in its slot so that it has
 * recovered (node restarted, process continued) well before the next one.
 * @module
 */
import { seededRandom } from "../../e2e/seeded-random.test-helpers.js";

/** The faults the suite injects. */
export const FAULT_KINDS = ["node-kill", "node-pause", "redis-restart", "redis-pause"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault of the schedule. */
export interface PlannedFault {
  readonly kind: FaultKind;
  /** When it starts, ms after the load started. */
  readonly atMs: number;
  /** The node (index) it hits; Redis faults have none. */
  readonly node: number | undefined;
  /**
   * How long the fault holds, ms: a killed node (or Redis) stays down this long before it is
   * started again; a paused process stays stopped this long before SIGCONT.
   */
  readonly holdMs: number;
}

/** What the schedule is drawn for. */
export interface ScheduleOptions {
  readonly seed: number;
  /** Length of the load, ms; faults fall between a warm-up and a quiet tail of it. */
  readonly durationMs: number;
  readonly kinds: readonly FaultKind[];
  /** Faults in the run (at least one of each kind asked for). */
  readonly count: number;
  readonly nodes: number;
  readonly nodeTimeoutMs: number;
}

// Load before the first fault, so every session and publisher is in its stride; and load after
// the last one has recovered, so what it disturbed is seen to settle under traffic.
const WARM_UP_MS = 2000;
const QUIET_TAIL_MS = 3000;

/** Parses `--faults` (comma-separated kinds, or `all`); a message for an unknown kind. */
export function parseFaultKinds(text: string | undefined): readonly FaultKind[] | string {
  if (text === undefined || text === "" || text === "all") return FAULT_KINDS;
  const kinds: FaultKind[] = [];
  for (const word of text.split(",").map((w) => w.trim())) {
    const kind = FAULT_KINDS.find((k) => k === word);
    if (kind === undefined) return `unknown fault kind ${JSON.stringify(word)} (known: ${FAULT_KINDS.join(", ")})`;
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

/**
 * How long one fault holds: a node kill stays down from nothing to twice the node timeout (so
 * survivors sometimes adopt its sessions, and sometimes it is back first and re-claims them); a
 * node pause outlasts the node timeout (1.5 to 3 times it), so survivors adopt its sessions while
 * it sleeps; Redis stays down or stopped about a second.
 */
function holdFor(kind: FaultKind, nodeTimeoutMs: number, random: () => number): number {
  switch (kind) {
    case "node-kill":
      return Math.round(random() * 2 * nodeTimeoutMs);
    case "node-pause":
      return Math.round((1.5 + random() * 1.5) * nodeTimeoutMs);
    case "redis-restart":
      return Math.round(random() * 1000);
    case "redis-pause":
      return Math.round(700 + random() * 600);
  }
}

/**
 * The slot a fault needs at least: its hold, the recovery (a killed node takes seconds to start
 * again on a loaded machine) and time for the load to settle.
 */
export function slotNeededMs(nodeTimeoutMs: number): number {
  return 3 * nodeTimeoutMs + 6000;
}

/**
 * Draws the schedule: `count` faults, the kinds in a seeded order with each kind as often as the
 * others (give or take one), each on a seeded node and with a seeded hold, one per slot.
 */
export function planFaults(options: ScheduleOptions): PlannedFault[] {
  const { seed, durationMs, kinds, nodes, nodeTimeoutMs } = options;
  const random = seededRandom(seed);
  const count = Math.max(options.count, kinds.length);
  const order = Array.from({ length: count }, (_, i) => kinds[i % kinds.length]).filter((k): k is FaultKind => k !== undefined);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const [a, b] = [order[i], order[j]];
    if (a !== undefined && b !== undefined) [order[i], order[j]] = [b, a];
  }
  const window = Math.max(0, durationMs - WARM_UP_MS - QUIET_TAIL_MS);
  const slot = window / count;
  return order.map((kind, i) => ({
    kind,
    // Early in the slot: the rest of it is for the recovery and the settling.
    atMs: Math.round(WARM_UP_MS + i * slot + random() * 0.25 * slot),
    node: kind === "node-kill" || kind === "node-pause" ? Math.floor(random() * nodes) : undefined,
    holdMs: holdFor(kind, nodeTimeoutMs, random),
  }));
}

/** The load a schedule of `count` faults needs so that each fault gets its slot, ms. */
export function durationNeededMs(count: number, nodeTimeoutMs: number): number {
  return WARM_UP_MS + QUIET_TAIL_MS + count * slotNeededMs(nodeTimeoutMs);
}
