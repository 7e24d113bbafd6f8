/**
 * The relay bench's processes: the server under test (the relay or the plain `ws` broadcast) pinned
 * to CPU 0 and the clients (publisher and subscriber processes) to CPU 1 when `taskset` exists, so
 * the client side never shares a core or an event loop with the server. CPU and RSS come from
 * /proc. `BENCH_PROF=<dir>` runs the server with `--cpu-prof` into that directory; `BENCH_LOG=<file>`
 * appends the server's log lines to that file.
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";

const appDir = new URL("../", import.meta.url).pathname;
/** USER_HZ: clock ticks per second in /proc/<pid>/stat. */
const CLOCK_TICKS = 100;

function which(command: string): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

const taskset = which("taskset");
/** True when the server and the clients run on separate cores. */
export const pinned = taskset !== undefined && cpus().length >= 2;

function onCpu(cpu: "server" | "clients", argv: readonly string[]): string[] {
  return pinned && taskset !== undefined ? [taskset, "-c", cpu === "server" ? "0" : "1", ...argv] : [...argv];
}

/** utime + stime of `pid` in seconds (0 once it is gone). */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Write-family system calls `pid` made so far (syscw of /proc/<pid>/io; 0 once it is gone or unreadable). */
export function writeCalls(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /^syscw:\s+(\d+)/m.exec(readFileSync(`/proc/${String(pid)}/io`, "utf8"));
    return Number(m?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** VmRSS of `pid` in MiB (0 once it is gone). */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${String(pid)}/status`, "utf8"));
    return Number(m?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const tsx = ["--import", "tsx", "--conditions=@handoff/source"];

/** A server child: its process and the port it printed. */
export interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  /** performance.now() when it was spawned: a --cpu-prof profile's time 0, near enough. */
  readonly startedAt: number;
  stop(): Promise<void>;
}

/** Starts `script args` (a TypeScript file under the app) on the server core; resolves with the port matched by `ready`. */
export async function startServer(script: string, args: readonly string[], ready: RegExp): Promise<Server> {
  const prof = process.env["BENCH_PROF"];
  const extra = process.env["BENCH_NODE_ARGS"]?.split(" ").filter((a) => a !== "") ?? [];
  const node = [process.execPath, ...extra, ...(prof === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${prof}`]), ...tsx, script, ...args];
  const [bin, ...rest] = onCpu("server", node);
  const startedAt = performance.now();
  const child = spawn(bin ?? process.execPath, rest, { cwd: appDir, stdio: ["ignore", "pipe", "inherit"] });
  const log = process.env["BENCH_LOG"];
  if (log !== undefined) child.stdout.pipe(createWriteStream(log, { flags: "a" }));
  const gone = new Promise<void>((resolve) => child.once("exit", () => { resolve(); }));
  const stop = async (): Promise<void> => {
    // SIGINT: the relay and the ws server exit cleanly on it, which writes a --cpu-prof profile.
    child.kill("SIGINT");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await gone;
    clearTimeout(timer);
  };
  for await (const line of createInterface({ input: child.stdout })) {
    const m = ready.exec(line);
    if (m?.[1] !== undefined) {
      // Keep draining the child's logs so a full pipe never blocks it.
      child.stdout.resume();
      return { child, port: Number(m[1]), startedAt, stop };
    }
  }
  throw new Error(`${script} exited before listening`);
}

/** A client child speaking the bench's IPC protocol (see clients.ts). */
export interface ClientProcess<R> {
  readonly pid: number | undefined;
  /** Sends a command; resolves with the child's next reply. */
  ask(command: object): Promise<R>;
  kill(): void;
}

/** Starts bench/clients.ts with `job` on the clients' core. */
export function startClient<R>(job: object): ClientProcess<R> {
  const [bin, ...rest] = onCpu("clients", [process.execPath, ...tsx, "bench/clients.ts", JSON.stringify(job)]);
  const child = spawn(bin ?? process.execPath, rest, { cwd: appDir, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const waiting: { resolve: (r: R) => void; reject: (e: Error) => void }[] = [];
  child.on("message", (m: { error?: string; reply?: R }) => {
    const w = waiting.shift();
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else if (m.reply !== undefined) w?.resolve(m.reply);
  });
  child.once("exit", (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`client process exited (${String(code)})`));
  });
  // The first reply is the child's "connected" (it starts work at once).
  const first = new Promise<R>((resolve, reject) => waiting.push({ resolve, reject }));
  let started = false;
  return {
    pid: child.pid,
    ask: (command) => {
      if (!started && "cmd" in command && command.cmd === "ready") {
        started = true;
        return first;
      }
      return new Promise<R>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.send(command);
      });
    },
    kill: () => {
      child.kill("SIGKILL");
    },
  };
}
