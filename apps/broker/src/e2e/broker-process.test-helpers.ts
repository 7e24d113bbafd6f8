// Test-only: the real broker entry point as a child process with SQLite storage, for SIGKILL tests.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

const appDir = new URL("../../", import.meta.url).pathname;

/** Broker processes still running; kill them after each test. */
export const children = new Set<ChildProcess>();

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * Starts the broker on `port` with SQLite storage in `dataDir` and resolves once it listens.
 * `lifetimeMs` bounds how long it may run (it is SIGKILLed then, so a failed test never leaks it).
 */
export async function startBroker(port: number, dataDir: string, extraArgs: readonly string[] = [], lifetimeMs = 50_000): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@handoff/source", "src/main.ts", "--host", "127.0.0.1", "--port", String(port), "--ws-port", "0", "--http-port", "0", "--data-dir", dataDir, "--storage", "sqlite", ...extraArgs],
    { cwd: appDir, stdio: ["ignore", "pipe", "inherit"] },
  );
  children.add(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), lifetimeMs);
  child.once("exit", () => {
    clearTimeout(timer);
    children.delete(child);
  });
  // Read stdout until the "listening" line; keep draining it after, so the child never blocks.
  return new Promise<ChildProcess>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('"broker listening"')) resolve(child);
    });
    child.once("exit", (code) => {
      reject(new Error(`broker exited (${String(code)}) before it listened: ${text}`));
    });
  });
}

/** SIGKILLs `child` and waits until it is gone. */
export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
