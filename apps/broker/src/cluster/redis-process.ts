/**
 * Starts a private redis-server for tests and benches: a free loopback port, its own temporary
 * directory, no RDB snapshots, AOF only when asked; stopped (and its directory removed) by
 * {@link RedisProcess.stop}. Never a system service.
 * @module
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Persistence of a {@link startRedis} server. */
export interface RedisProcessOptions {
  /** AOF with this fsync policy; absent: no persistence at all (fastest, for tests that never restart). */
  readonly appendfsync?: "always" | "everysec";
  /** Most ms to wait for "Ready to accept connections". Default 10 000. */
  readonly startTimeoutMs?: number;
}

/** A running redis-server. */
export interface RedisProcess {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** The running server's process id (benches read its CPU time). */
  pid(): number | undefined;
  /** SIGKILL, keeping the directory (what AOF holds survives). */
  crash(): Promise<void>;
  /** Starts again on the same port and directory after {@link RedisProcess.crash} (AOF is replayed). */
  revive(): Promise<void>;
  /** {@link RedisProcess.crash} then {@link RedisProcess.revive}. */
  restart(): Promise<void>;
  /** SIGKILL and remove the directory. Idempotent. */
  stop(): Promise<void>;
}

/** True when `redis-server` runs here (tests that need it are skipped without it). */
export async function redisInstalled(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("redis-server", ["--version"], (err) => {
      resolve(err === null);
    });
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  server.close();
  await once(server, "close");
  return port;
}

// Resolves once the server says it is ready; rejects with its output if it exits or times out.
async function launch(args: readonly string[], timeoutMs: number): Promise<ChildProcess> {
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`redis-server not ready after ${String(timeoutMs)} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.stdout.off("data", onData);
        resolve(child);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${String(code)}) before it was ready:\n${output}`));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** Starts a redis-server on a free loopback port (retrying when another process took the port first). */
export async function startRedis(options: RedisProcessOptions = {}): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), "handoff-redis-"));
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const persistence = options.appendfsync === undefined ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", options.appendfsync];
  let child: ChildProcess | undefined;
  let port = 0;
  let lastError: unknown;
  const argsFor = (p: number): string[] => ["--port", String(p), "--bind", "127.0.0.1", "--dir", dir, "--save", "", ...persistence];
  for (let attempt = 0; attempt < 5 && child === undefined; attempt += 1) {
    port = await freePort();
    child = await launch(argsFor(port), timeoutMs).catch((err: unknown) => {
      lastError = err;
      return undefined;
    });
  }
  if (child === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw lastError instanceof Error ? lastError : new Error("redis-server did not start");
  }
  let current: ChildProcess = child;
  let stopped = false;
  return {
    port,
    url: `redis://127.0.0.1:${String(port)}`,
    pid: () => current.pid,
    async crash() {
      await kill(current);
    },
    async revive() {
      current = await launch(argsFor(port), timeoutMs);
    },
    async restart() {
      await kill(current);
      current = await launch(argsFor(port), timeoutMs);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
