/**
 * The cluster fault suite (issue 40, item 3): three broker nodes (child processes) and one Redis
 * (AOF, appendfsync always) under the takeover churn of 20 client ids, two persistent QoS 1
 * publishers and a will watcher, while faults from a seeded schedule are injected one at a time
 * (fault-schedule.ts). After the load the history is checked (history-check.ts). Shared by
 * `pnpm soak:cluster` (soak-cluster.ts) and the short fixed-seed test of CI.
 *
 * Every step has a bound: connects and SUBACKs time out, drains and the final waits give up after
 * seconds to a minute, node processes are SIGKILLed after the run's bound, and the whole run
 * rejects when it overruns its load by {@link OVERRUN_MS}.
 * @module
 */
import type { MqttClient } from "mqtt";
import { ClusterProcesses } from "./cluster-processes.js";
import { ChurnedId, type ChurnContext } from "./churners.js";
import { planFaults, type FaultKind, type PlannedFault } from "./fault-schedule.js";
import { FaultTimeline, seconds } from "./fault-timeline.js";
import { checkHistory, willsMissing } from "./history-check.js";
import { missingFrom, type ChurnHistory, type PersistentConnack, type SentMessage } from "./history.js";
import { pace, SoakPublisher, WillWatcher } from "./load-clients.js";
import type { FaultSuiteReport } from "./report-table.js";

/** The shape of one run. */
export interface FaultSuiteOptions {
  readonly seed: number;
  /** Length of the load, ms. */
  readonly durationMs: number;
  readonly kinds: readonly FaultKind[];
  /** Faults injected (at least one of each kind). */
  readonly faults: number;
  readonly nodeTimeoutMs?: number;
  /** Churned client ids (default 20). */
  readonly ids?: number;
  /** Publishers (default 2), each at `rate` msg/s (default 400). */
  readonly publishers?: number;
  readonly rate?: number;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** How far past its load a run may go before it is abandoned (drains, restarts, waits). */
export const OVERRUN_MS = 5 * 60_000;
const SETTLE_MS = 30_000;
const WILL_WAIT_MS = 20_000;
const QUIET_TAIL_MS = 3000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms: number, pollMs = 20): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(pollMs);
  }
  return true;
}

/** Runs the suite once; never throws for a broken guarantee (see the report's violations). */
export async function runFaultSuite(options: FaultSuiteOptions): Promise<FaultSuiteReport> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the run went on ${seconds(OVERRUN_MS)} past its load; abandoned`));
    }, options.durationMs + OVERRUN_MS);
  });
  const cluster = await ClusterProcesses.start({ nodes: 3, nodeTimeoutMs: options.nodeTimeoutMs ?? 1000, lifetimeMs: options.durationMs + OVERRUN_MS + 60_000 });
  const clients = new Set<MqttClient>();
  try {
    const running = run(options, cluster, clients);
    // Abandoned at the overrun, it may still fail later, against processes already gone.
    running.catch(() => undefined);
    return await Promise.race([running, overrun]);
  } finally {
    clearTimeout(timer);
    await Promise.all([...clients].map((c) => c.endAsync(true).catch(() => undefined)));
    await cluster.stop();
  }
}

async function run(options: FaultSuiteOptions, cluster: ClusterProcesses, clients: Set<MqttClient>): Promise<FaultSuiteReport> {
  const log = options.log ?? (() => undefined);
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const ids = options.ids ?? 20;
  const started = performance.now();
  const clock = (): number => performance.now() - started;
  const timeline = new FaultTimeline();
  const connacks: PersistentConnack[] = [];
  const loadContext = { clock, ports: Array.from({ length: cluster.count }, (_, i) => cluster.port(i)), names: cluster.names, connacks };
  const topicOf = (id: number, which: number): string => `soak/${String(id)}/${String(which % 3)}`;

  const watcher = new WillWatcher(loadContext, "soakwill/#");
  clients.add(watcher.client);
  await watcher.ready();
  // Per id, the messages sent to its topics, up to date at every moment: a drain that read a
  // list behind what was acknowledged would let a session end before it got what it was owed.
  const byId = Array.from({ length: ids }, (): SentMessage[] => []);
  const publishers = Array.from({ length: options.publishers ?? 2 }, (_, i) => new SoakPublisher(`p${String(i)}`, loadContext, ids, topicOf, (m) => byId[m.id]?.push(m)));
  for (const p of publishers) clients.add(p.client);
  await Promise.all(publishers.map((p) => p.ready()));

  const history: ChurnHistory = { attempts: Array.from({ length: ids }, () => []), lifetimes: Array.from({ length: ids }, () => []) };
  const ctx: ChurnContext = {
    clock,
    cluster,
    timeline,
    history,
    published: (id) => byId[id] ?? [],
    topicOf,
    willTopic: (clientId, attempt) => `soakwill/${clientId}/${String(attempt)}`,
    track: (client) => clients.add(client),
  };
  const churned = Array.from({ length: ids }, (_, id) => new ChurnedId(ctx, id));

  const plan = planFaults({ seed: options.seed, durationMs: options.durationMs, kinds: options.kinds, count: options.faults, nodes: cluster.count, nodeTimeoutMs });
  log(`seed ${String(options.seed)}: ${String(plan.length)} faults over ${seconds(options.durationMs)} of load: ${plan.map((f) => `${f.kind}${f.node === undefined ? "" : ` n${String(f.node)}`} at ${seconds(f.atMs)} for ${String(f.holdMs)} ms`).join("; ")}`);
  const publishing = pace(publishers, options.rate ?? 400);
  // A failed injection (a node that does not start again) fails the run once the churn is over.
  const injection = { done: false };
  const injecting = inject(plan, cluster, timeline, clock, log).then(
    () => undefined,
    (err: unknown) => err,
  ).finally(() => {
    injection.done = true;
  });
  // The load goes on for its duration, and past it until the last fault has recovered and a quiet
  // tail has run after it.
  const going = (): boolean => clock() < options.durationMs || !injection.done || clock() < (timeline.events.at(-1)?.end ?? 0) + QUIET_TAIL_MS;
  try {
    await Promise.all(churned.map((c) => c.run(going)));
    const failed = await injecting;
    if (failed !== undefined) throw failed instanceof Error ? failed : new Error("fault injection failed", { cause: failed });
  } finally {
    publishing.stop();
  }
  log(`load over at ${seconds(clock())}; settling`);
  if (!(await until(() => publishers.every((p) => p.outstanding === 0), SETTLE_MS))) log(`publishers still wait for ${String(publishers.reduce((s, p) => s + p.outstanding, 0))} acknowledgements`);
  await Promise.all(churned.map((c) => c.finish()));
  const sessions = history.lifetimes.flat();
  if (!(await until(() => sessions.every((l) => l.unchecked !== undefined || missingFrom(l, byId[l.id] ?? []) === 0), SETTLE_MS, 200))) log("not every session has everything it is owed at the settle deadline");

  // The last connections end normally: their wills must not fire.
  await Promise.all(churned.map(async (c) => {
    const { last, client } = c;
    if (last === undefined || client === undefined || !c.drainable(last)) return;
    last.disconnected = true;
    await Promise.race([client.endAsync(false), sleep(5000)]);
  }));
  // Wills owed once arrive within the node timeout and its survey; late second firings show too.
  await until(() => willsMissing(history, watcher.copies) === 0, WILL_WAIT_MS, 200);
  await sleep(Math.max(2000, 2 * nodeTimeoutMs));

  const messages = publishers.flatMap((p) => p.messages);
  for (const p of publishers) for (const r of p.refused.slice(0, 3)) log(`${p.name} publish refused: ${r}`);
  const { violations, figures } = checkHistory({ messages, churn: history, willCopies: watcher.copies, connacks, timeline });
  return { seed: options.seed, durationMs: options.durationMs, nodeTimeoutMs, elapsedMs: clock(), timeline, figures, violations };
}

// Between one fault's recovery and the next fault, so that what each one did is told apart.
const MIN_GAP_MS = 2000;

// Injects the faults in order, each at its time or a little after the one before has recovered
// (a killed node takes seconds to start again on a loaded machine).
async function inject(plan: readonly PlannedFault[], cluster: ClusterProcesses, timeline: FaultTimeline, clock: () => number, log: (line: string) => void): Promise<void> {
  for (const fault of plan) {
    const wait = Math.max(fault.atMs, (timeline.events.at(-1)?.end ?? -Infinity) + MIN_GAP_MS) - clock();
    if (wait > 0) await sleep(wait);
    const target = fault.node === undefined ? "redis" : (cluster.names[fault.node] ?? "?");
    log(`${seconds(clock())}: ${fault.kind} ${target} for ${String(fault.holdMs)} ms`);
    await cluster.inject(fault, timeline, clock);
    log(`${seconds(clock())}: ${target} back`);
  }
}
