// Test-only: the real broker entry point as a child process with SQLite storage, for SIGKILL tests.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { TEST_TIMEOUT_MS } from "@handoff/test-kit";

const appDir = new URL("../../", import.meta.url).pathname;

/** Broker processes still running; kill them after each test. */
export const children = new Set<ChildProcess>();

/**
 * Starts the broker on `port` with SQLite storage in `dataDir` and resolves once it listens.
 * `lifetimeMs` bounds how long it may run (it is SIGKILLed then, so a failed test never leaks it;
 * by default the test timeout, a safety net).
 */
export async function startBroker(port: number, dataDir: string, extraArgs: readonly string[] = [], lifetimeMs = TEST_TIMEOUT_MS): Promise<ChildProcess> {
  return (await spawnBroker(port, dataDir, extraArgs, lifetimeMs)).child;
}

/**
 * {@link startBroker} on a port the broker binds itself (port 0), resolving with that port: a port
 * probed free and handed over could be taken by another process before the broker binds it.
 */
export function startBrokerOnAnyPort(dataDir: string, extraArgs: readonly string[] = [], lifetimeMs = TEST_TIMEOUT_MS): Promise<{ readonly child: ChildProcess; readonly port: number }> {
  return spawnBroker(0, dataDir, extraArgs, lifetimeMs);
}

async function spawnBroker(port: number, dataDir: string, extraArgs: readonly string[], lifetimeMs: number): Promise<{ readonly child: ChildProcess; readonly port: number }> {
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
  // Read stdout until the "listening" line (which names the ports bound); keep draining it after,
  // so the child never blocks.
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split("\n").find((l) => l.includes('"broker listening"'));
      if (line === undefined) return;
      const bound = (JSON.parse(line) as { mqtt?: unknown }).mqtt;
      if (typeof bound === "number") resolve({ child, port: bound });
      else reject(new Error(`broker listening line without an MQTT port: ${line}`));
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
