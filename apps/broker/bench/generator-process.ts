/**
 * A load generator child process (peers-generator.ts) as the benches drive it: spawned with its
 * job, reports ready over IPC, starts on `go`, reports its result, disconnects on `close`.
 * @module
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { GeneratorJob, GeneratorResult } from "./peers-generator.js";

const brokerDir = fileURLToPath(new URL("..", import.meta.url));

interface Message {
  ready?: boolean;
  result?: GeneratorResult;
  error?: string;
}

/**
 * A generator child: ready once connected, started by `go`, its result at the end. After its
 * result its publishers are stopped and its clients still connected, until `close` (publishers
 * first, so that no subscriber leaves while copies still flow to it).
 */
export interface GeneratorProcess {
  readonly pid: number | undefined;
  readonly ready: Promise<void>;
  go(): void;
  readonly result: Promise<GeneratorResult>;
  /** Disconnects the clients and waits for the child to exit. */
  close(): Promise<void>;
}

/** Starts one generator child for `job`, its command prefixed by `prefix` (e.g. taskset). */
export function startGenerator(prefix: readonly string[], job: GeneratorJob): GeneratorProcess {
  const args = ["--import", "tsx", "--conditions=@handoff/source", "bench/peers-generator.ts", JSON.stringify(job)];
  const [command, ...rest] = [...prefix, process.execPath, ...args];
  const child = spawn(command ?? process.execPath, rest, { cwd: brokerDir, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let ready: () => void = () => undefined;
  let fail: (e: Error) => void = () => undefined;
  const readyP = new Promise<void>((resolve, reject) => {
    ready = resolve;
    fail = reject;
  });
  const result = new Promise<GeneratorResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("generator timed out"));
    }, 60_000);
    child.on("message", (m: Message) => {
      if (m.ready === true) ready();
      if (m.error !== undefined) {
        fail(new Error(m.error));
        reject(new Error(m.error));
      }
      if (m.result !== undefined) {
        clearTimeout(timer);
        resolve(m.result);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      const e = new Error(`generator exited (${String(code)})`);
      fail(e);
      reject(e);
    });
  });
  result.catch(() => undefined);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => { resolve(); });
  });
  const close = async (): Promise<void> => {
    if (child.connected) child.send({ close: true });
    await exited;
  };
  return { pid: child.pid, ready: readyP, go: () => child.send({ go: true }), result, close };
}

