/**
 * The brokers under test, each started as a child process listening on 127.0.0.1 (port chosen by
 * the system), so the load generator and the broker never share an event loop. Each child has an
 * IPC channel: should the bench die, the child sees the disconnect and exits.
 * @module
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** A running broker child. */
export interface Target {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  /** Resident set size now, from /proc (undefined once the process is gone). */
  rss(): number | undefined;
  /** CPU seconds (user + system) used so far. */
  cpuSeconds(): number | undefined;
  /** Counts of warning/error log lines the child printed, by message. */
  readonly warnings: ReadonlyMap<string, number>;
  /** handoff's /health and /metrics port (undefined for other brokers). */
  readonly httpPort: number | undefined;
  /** handoff's drop counters by reason, from its /metrics endpoint (undefined for other brokers). */
  drops(): Promise<ReadonlyMap<string, number> | undefined>;
  /** handoff's count of store commits, from /metrics (undefined for other brokers and without a store). */
  commits(): Promise<number | undefined>;
  /** Exit code or signal if the child died on its own. */
  exited(): string | undefined;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** A broker the bench can start. */
export interface TargetKind {
  readonly name: string;
  start(): Promise<Target>;
}

const brokerDir = fileURLToPath(new URL("..", import.meta.url));
const STARTUP_MS = 30_000;
const STOP_GRACE_MS = 5_000;
/** Kernel clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** VmRSS of `pid` in bytes, or undefined when not readable. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] === undefined ? undefined : Number(m[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** utime + stime of `pid` in seconds, or undefined when not readable. */
export function cpuOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

let pinning: readonly string[] = [];

/** Runs every broker started from now on through `taskset -c <cpus>` (the peers bench pins them). */
export function pinBrokers(taskset: string, cpuList: string): void {
  pinning = [taskset, "-c", cpuList];
}

// BENCH_LOG=<file>: every broker's stdout (its log, and node's own output such as --trace-gc)
// is appended there.
const logFile = process.env["BENCH_LOG"];

// Starts `command args`, waits for a JSON line with msg "broker listening" and an `mqtt` port.
async function spawnBroker(name: string, command: string, args: readonly string[], cleanup?: () => void): Promise<Target> {
  const [bin, ...rest] = [...pinning, command, ...args];
  const child: ChildProcess = spawn(bin ?? command, rest, { cwd: brokerDir, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  const warnings = new Map<string, number>();
  let stderr = "";
  let exit: string | undefined;
  let stopping = false;
  const gone = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = signal ?? `code ${String(code)}`;
      if (code !== 0 && !stopping) exit += `; stderr: ${stderr.trim().split("\n").slice(-5).join(" | ")}`;
      cleanup?.();
      resolve();
    });
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2000);
  });
  let httpPort: number | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name}: no "broker listening" line within ${STARTUP_MS} ms; stderr: ${stderr}`));
    }, STARTUP_MS);
    const fail = (): void => {
      clearTimeout(timer);
      reject(new Error(`${name} exited during startup (${exit ?? "?"}): ${stderr}`));
    };
    void gone.then(fail);
    if (child.stdout === null) {
      reject(new Error(`${name}: no stdout`));
      return;
    }
    // Keep reading stdout for the whole run: a child blocked on a full pipe would look slow.
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (logFile !== undefined) appendFileSync(logFile, `${line}\n`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof parsed !== "object" || parsed === null) return;
      const rec = parsed as { msg?: unknown; mqtt?: unknown; http?: unknown; level?: unknown };
      if (rec.msg === "broker listening" && typeof rec.mqtt === "number") {
        if (typeof rec.http === "number") httpPort = rec.http;
        clearTimeout(timer);
        resolve(rec.mqtt);
      } else if (typeof rec.level === "number" && rec.level >= 40 && typeof rec.msg === "string") {
        warnings.set(rec.msg, (warnings.get(rec.msg) ?? 0) + 1);
      }
    });
  }).catch(async (err: unknown) => {
    child.kill("SIGKILL");
    await gone;
    throw err;
  });
  // The config file was read at startup; remove it now rather than rely on a clean exit.
  cleanup?.();
  const pid = child.pid ?? 0;
  return {
    name,
    port,
    pid,
    rss: () => rssOf(pid),
    cpuSeconds: () => cpuOf(pid),
    warnings,
    httpPort,
    drops: () => (httpPort === undefined ? Promise.resolve(undefined) : scrapeDrops(httpPort)),
    commits: () => (httpPort === undefined ? Promise.resolve(undefined) : scrapeCommits(httpPort)),
    exited: () => exit,
    stop: async () => {
      if (exit !== undefined) return;
      stopping = true;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await gone;
      clearTimeout(timer);
    },
  };
}

const DROPPED = /^handoff_broker_messages_dropped_total\{reason="([^"]+)"\} (\d+)$/gm;
const COMMITS = /^handoff_broker_store_commits_total (\d+)$/m;

async function scrapeMetrics(port: number): Promise<string | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
    return await res.text();
  } catch {
    return undefined;
  }
}

async function scrapeDrops(port: number): Promise<ReadonlyMap<string, number> | undefined> {
  const text = await scrapeMetrics(port);
  return text === undefined ? undefined : new Map([...text.matchAll(DROPPED)].map((m) => [m[1] ?? "?", Number(m[2])]));
}

async function scrapeCommits(port: number): Promise<number | undefined> {
  const m = COMMITS.exec((await scrapeMetrics(port)) ?? "");
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

const tsxArgs = ["--import", "tsx", "--conditions=@handoff/source"];
let built = false;

/**
 * How `start` runs the broker: the built dist/main.js, rebuilt first when a source it bundles is
 * newer (the same `--if-stale` build `start` runs), so the figures are the product's, not tsx's.
 */
function builtBrokerArgs(): readonly string[] {
  if (!built) {
    execFileSync(process.execPath, ["../../scripts/build.mjs", "--if-stale", "broker"], { cwd: brokerDir, stdio: "inherit" });
    built = true;
  }
  return ["--enable-source-maps", "dist/main.js"];
}
/**
 * `BENCH_PROF=<dir>`: handoff runs with --cpu-prof into `<dir>` (written when it exits on SIGTERM);
 * `BENCH_NODE_ARGS="--trace-gc ..."` adds node flags to it.
 */
const nodeArgs = [
  ...(process.env["BENCH_PROF"] === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env["BENCH_PROF"]}`]),
  ...(process.env["BENCH_NODE_ARGS"] ?? "").split(/\s+/).filter((a) => a !== ""),
];

/** A node of a cluster on Redis: the server, the key prefix its cluster shares, its node id. */
export interface ClusterNode {
  readonly url: string;
  readonly prefix: string;
  readonly nodeId: string;
}

const storageName = { memory: "memory", sqlite: "SQLite", redis: "Redis" } as const;

/**
 * handoff's built main.js, MQTT over TCP only, with `storage`, connection limit raised to 20k;
 * with `redis` storage, a node of the cluster `node` names.
 */
export function handoffWith(storage: "memory" | "sqlite"): TargetKind;
export function handoffWith(storage: "redis", node: ClusterNode): TargetKind;
export function handoffWith(storage: "memory" | "sqlite" | "redis", node?: ClusterNode): TargetKind {
  const name = `handoff (${storageName[storage]}${node === undefined ? "" : `, ${node.nodeId}`})`;
  return {
    name,
    start: async () => {
      const dir = mkdtempSync(join(tmpdir(), "handoff-bench-"));
      // The data directory outlives the config file, which goes once the broker has read it.
      const dataDir = mkdtempSync(join(tmpdir(), "handoff-bench-data-"));
      const config = join(dir, "broker.yaml");
      // JSON is YAML: the config file raises the connection limit (default 10,000) above the
      // 10k idle connections of the memory run and turns off the WebSocket listener; the HTTP
      // endpoint stays on so the bench can read the broker's drop counters.
      writeFileSync(
        config,
        JSON.stringify({
          host: "127.0.0.1",
          storage: node === undefined ? { kind: storage } : { kind: storage, url: node.url, prefix: node.prefix },
          ...(node === undefined ? {} : { cluster: { nodeId: node.nodeId } }),
          dataDir,
          logLevel: "info",
          listeners: { tcp: { port: 0 }, ws: { enabled: false } },
          http: { port: 0 },
          limits: { maxConnections: 20_000 },
        }),
      );
      const target = await spawnBroker(storage === "memory" ? "handoff" : name, process.execPath, [...nodeArgs, ...builtBrokerArgs(), "--config", config], () => {
        rmSync(dir, { recursive: true, force: true });
      }).catch((err: unknown) => {
        rmSync(dataDir, { recursive: true, force: true });
        throw err;
      });
      return {
        ...target,
        stop: async () => {
          await target.stop();
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** handoff with in-memory storage (the load bench's target). */
export const handoff: TargetKind = { ...handoffWith("memory"), name: "handoff" };

/** aedes 1.2.0 (MQTT 3.1.1), default in-memory persistence. */
export const aedes: TargetKind = {
  name: "aedes",
  start: () => spawnBroker("aedes", process.execPath, [...tsxArgs, "bench/aedes-child.ts"]),
};

/**
 * The null broker in a process of its own: a bare `node:net` server answering CONNECT, SUBSCRIBE
 * and PUBLISH with the least MQTT. What a client costs it is the floor for any broker in Node.
 */
export const nodeFloor: TargetKind = {
  name: "node:net floor",
  start: () => spawnBroker("node:net floor", process.execPath, [...tsxArgs, "bench/null-broker-child.ts"]),
};

/** The path of an executable on PATH, if any. */
export function which(command: string): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

/**
 * mosquitto, when its binary is on PATH. It cannot report a system-chosen port, so a free one is
 * picked first; a tiny wrapper prints the "broker listening" line once the port accepts.
 */
export function mosquitto(binary: string): TargetKind {
  return {
    name: "mosquitto",
    start: async () => {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), "handoff-bench-mosq-"));
      const config = join(dir, "mosquitto.conf");
      writeFileSync(config, `listener ${port} 127.0.0.1\nallow_anonymous true\nmax_connections -1\nmax_queued_messages 1000\n`);
      const wrapper = [
        `const { spawn } = require("node:child_process"); const net = require("node:net");`,
        `const m = spawn(${JSON.stringify(binary)}, ["-c", ${JSON.stringify(config)}], { stdio: ["ignore", "ignore", "inherit"] });`,
        `m.on("exit", (c) => process.exit(c ?? 1));`,
        `const stop = () => m.kill("SIGTERM"); process.on("SIGTERM", stop); process.on("disconnect", stop);`,
        `const poll = () => { const s = net.connect(${port}, "127.0.0.1"); s.on("connect", () => { s.destroy(); console.log(JSON.stringify({ msg: "broker listening", mqtt: ${port}, pid: m.pid })); }); s.on("error", () => setTimeout(poll, 50)); }; poll();`,
      ].join("\n");
      const target = await spawnBroker("mosquitto", process.execPath, ["-e", wrapper], () => {
        rmSync(dir, { recursive: true, force: true });
      });
      // Memory and CPU are the mosquitto process's, not the wrapper's: its pid is the wrapper's child.
      const child = Number(readFileSync(`/proc/${target.pid}/task/${target.pid}/children`, "utf8").trim().split(" ")[0]);
      return { ...target, rss: () => rssOf(child), cpuSeconds: () => cpuOf(child) };
    },
  };
}

/**
 * Waits until every target is idle (under 10% of a core each over 500 ms, at most 20 s), so what
 * one row left behind (unread input, queues, routing between nodes) does not run into the next.
 */
export async function settleAll(targets: readonly Target[]): Promise<void> {
  const cpu = (): number => targets.reduce((n, t) => n + (t.cpuSeconds() ?? 0), 0);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const a = cpu();
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (cpu() - a < 0.05 * targets.length || Date.now() > deadline) return;
  }
}

/**
 * Copies handoff targets dropped so far, by their own count (undefined for other brokers): every
 * reason but those of the generators' clean sessions ending with a row (their queues and the plans
 * still in flight for them go then, by the spec, not lost for a subscriber that was reading).
 */
export async function droppedCopies(targets: readonly Target[]): Promise<number | undefined> {
  let total = 0;
  for (const t of targets) {
    const drops = await t.drops();
    if (drops === undefined) return undefined;
    for (const [reason, n] of drops) if (reason !== "session-discarded" && reason !== "stale-plan") total += n;
  }
  return total;
}
