/**
 * The processes under test: one redis-server (AOF, appendfsync always) and broker nodes of one
 * cluster, each the real entry point in a child process (SIGKILL and SIGSTOP need one), and the
 * faults injected into them. A node about to be killed or stopped is first taken out of the
 * churners' rotation and the connection steps under way on it are let finish: a CONNECT left
 * waiting in a stopped node's socket would take its session over whenever the node wakes, long
 * after its client gave up, which no oracle can tell from a bug.
 * @module
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kill, startBroker, startBrokerOnAnyPort } from "../../e2e/broker-process.test-helpers.js";
import { startRedis, type RedisProcess } from "../redis-process.js";
import type { PlannedFault } from "./fault-schedule.js";
import type { FaultTimeline } from "./fault-timeline.js";

/** How the cluster runs. */
export interface ClusterOptions {
  readonly nodes: number;
  readonly nodeTimeoutMs: number;
  /** Each node process is SIGKILLed after this long whatever happens (a leak guard). */
  readonly lifetimeMs: number;
}

// How long a node being taken out waits for the steps under way on it: longer than a connect
// timeout plus a SUBACK, so it only gives up on a step that is stuck.
const QUIESCE_MS = 30_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Redis and the nodes, with what the churners need to pick a node. */
export class ClusterProcesses {
  static readonly #running = new Set<ClusterProcesses>();
  readonly names: readonly string[];
  readonly #ports: number[];
  readonly #children: (ChildProcess | undefined)[];
  readonly #args: (i: number) => string[];
  readonly #root: string;
  readonly #options: ClusterOptions;
  readonly #available: boolean[];
  readonly #busy: number[];

  private constructor(
    readonly redis: RedisProcess,
    root: string,
    options: ClusterOptions,
    started: readonly { readonly child: ChildProcess; readonly port: number }[],
    args: (i: number) => string[],
  ) {
    this.#root = root;
    this.#options = options;
    this.#args = args;
    this.#ports = started.map((s) => s.port);
    this.#children = started.map((s) => s.child);
    this.names = started.map((_, i) => `n${String(i)}`);
    this.#available = started.map(() => true);
    this.#busy = started.map(() => 0);
    ClusterProcesses.#running.add(this);
  }

  /** Kills, synchronously, every process of every cluster still running (for a CLI's exit). */
  static killAll(): void {
    for (const cluster of ClusterProcesses.#running) {
      for (const child of cluster.#children) child?.kill("SIGKILL");
      const pid = cluster.redis.pid();
      if (pid !== undefined) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      rmSync(cluster.#root, { recursive: true, force: true });
    }
  }

  /** Starts Redis and `options.nodes` nodes on a fresh key prefix. */
  static async start(options: ClusterOptions): Promise<ClusterProcesses> {
    const redis = await startRedis({ appendfsync: "always" });
    const root = mkdtempSync(join(tmpdir(), "handoff-fault-suite-"));
    try {
      // Queue bounds no run comes near: every acknowledged message is owed, none dropped by policy.
      const config = join(root, "broker.yaml");
      writeFileSync(config, "limits:\n  maxQueuedMessages: 10000000\n  maxQueuedBytes: 10000000000\n");
      const args = (i: number): string[] => {
        const node = `n${String(i)}`;
        mkdirSync(join(root, node), { recursive: true });
        return ["--config", config, "--storage", "redis", "--redis-url", redis.url, "--redis-prefix", "soak:", "--node-id", node, "--node-timeout-ms", String(options.nodeTimeoutMs)];
      };
      const started = await Promise.all(Array.from({ length: options.nodes }, (_, i) => startBrokerOnAnyPort(join(root, `n${String(i)}`), args(i), options.lifetimeMs)));
      return new ClusterProcesses(redis, root, options, started, args);
    } catch (err) {
      await redis.stop();
      rmSync(root, { recursive: true, force: true });
      throw err;
    }
  }

  get count(): number {
    return this.names.length;
  }

  port(node: number): number {
    return this.#ports[node] ?? 0;
  }

  url(node: number): string {
    return `mqtt://127.0.0.1:${String(this.port(node))}`;
  }

  /** Whether new connection steps may go to `node`. */
  available(node: number): boolean {
    return this.#available[node] === true;
  }

  /** The first available node from `start` on, round the ring. */
  pick(start: number): number {
    for (let k = 0; k < this.count; k++) {
      const node = (start + k) % this.count;
      if (this.available(node)) return node;
    }
    return start % this.count;
  }

  /** Runs a connection step on `node`; a node is not taken out while one is under way. */
  async step<T>(node: number, run: () => Promise<T>): Promise<T> {
    this.#busy[node] = (this.#busy[node] ?? 0) + 1;
    try {
      return await run();
    } finally {
      this.#busy[node] = (this.#busy[node] ?? 1) - 1;
    }
  }

  async #takeOut(node: number): Promise<void> {
    this.#available[node] = false;
    const deadline = Date.now() + QUIESCE_MS;
    while ((this.#busy[node] ?? 0) > 0 && Date.now() < deadline) await sleep(5);
  }

  #child(node: number): ChildProcess {
    const child = this.#children[node];
    if (child === undefined) throw new Error(`no process for node ${String(node)}`);
    return child;
  }

  /** Injects `fault` and resolves once its target is back, recording both moments. */
  async inject(fault: PlannedFault, timeline: FaultTimeline, clock: () => number): Promise<void> {
    const node = fault.node ?? 0;
    switch (fault.kind) {
      case "node-kill": {
        await this.#takeOut(node);
        const event = timeline.begin(fault.kind, this.names[node] ?? "?", clock());
        await kill(this.#child(node));
        await sleep(fault.holdMs);
        // On the port it had, so that the persistent clients' server lists still name it.
        this.#children[node] = await startBroker(this.port(node), join(this.#root, `n${String(node)}`), this.#args(node), this.#options.lifetimeMs);
        event.end = clock();
        this.#available[node] = true;
        return;
      }
      case "node-pause": {
        await this.#takeOut(node);
        const child = this.#child(node);
        const event = timeline.begin(fault.kind, this.names[node] ?? "?", clock());
        child.kill("SIGSTOP");
        try {
          await sleep(fault.holdMs);
        } finally {
          child.kill("SIGCONT");
        }
        event.end = clock();
        this.#available[node] = true;
        return;
      }
      case "redis-restart": {
        const event = timeline.begin(fault.kind, "redis", clock());
        await this.redis.crash();
        await sleep(fault.holdMs);
        await this.redis.revive();
        event.end = clock();
        return;
      }
      case "redis-pause": {
        const pid = this.redis.pid();
        if (pid === undefined) throw new Error("redis-server has no process id");
        const event = timeline.begin(fault.kind, "redis", clock());
        process.kill(pid, "SIGSTOP");
        try {
          await sleep(fault.holdMs);
        } finally {
          process.kill(pid, "SIGCONT");
        }
        event.end = clock();
        return;
      }
    }
  }

  /** Kills every node and Redis and removes their directories. */
  async stop(): Promise<void> {
    ClusterProcesses.#running.delete(this);
    await Promise.all(this.#children.flatMap((c) => (c === undefined ? [] : [kill(c)])));
    await this.redis.stop();
    rmSync(this.#root, { recursive: true, force: true });
  }
}
