import { spawn, type ChildProcess } from "node:child_process";
import { get } from "node:http";
import { fileURLToPath } from "node:url";
import { TEST_TIMEOUT_MS } from "@handoff/test-kit";
import { within } from "./harness.test-helpers.js";

const appDir = fileURLToPath(new URL("../..", import.meta.url));

/** A relay running as its real entry point in a child process. */
export interface ChildRelay {
  readonly child: ChildProcess;
  readonly ports: { readonly http: number; readonly tcp: number | undefined; readonly metrics: number | undefined };
  /** Every log record it printed so far (JSON lines). */
  readonly logs: readonly Record<string, unknown>[];
  /** True while the process runs. */
  alive(): boolean;
}

/**
 * Starts `src/main.ts` on 127.0.0.1 with free ports and `args`, killed by `cleanup` after the
 * test (SIGKILL after `lifetimeMs`, the test timeout by default, at the latest); resolves once it logged
 * "relay listening".
 */
export async function childRelay(cleanup: (() => unknown)[], args: readonly string[] = [], lifetimeMs = TEST_TIMEOUT_MS): Promise<ChildRelay> {
  const argv = ["--import", "tsx", "--conditions=@handoff/source", "src/main.ts", "--host", "127.0.0.1", "--port", "0", ...args];
  const child = spawn(process.execPath, argv, { cwd: appDir, stdio: ["ignore", "pipe", "inherit"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), lifetimeMs);
  child.once("exit", () => {
    clearTimeout(timer);
  });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const logs: Record<string, unknown>[] = [];
  const listening = new Promise<ChildRelay["ports"]>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const lines = text.split("\n");
      text = lines.pop() ?? "";
      for (const line of lines) {
        const record = JSON.parse(line) as Record<string, unknown>;
        logs.push(record);
        if (record["msg"] !== "relay listening") continue;
        const port = (key: string): number | undefined => (typeof record[key] === "number" ? record[key] : undefined);
        resolve({ http: port("http") ?? 0, tcp: port("tcp"), metrics: port("metrics") });
      }
    });
    child.once("exit", (code) => {
      reject(new Error(`relay child exited (${String(code)}) before it listened`));
    });
  });
  const ports = await within(listening, 20_000, "child relay listening");
  return { child, ports, logs, alive: () => child.exitCode === null && child.signalCode === null };
}

/**
 * GETs `url` from a relay process on a connection of its own, closed after. fetch would reuse a
 * pooled keep-alive connection, which the relay's server closes after 5 s idle: on a loaded
 * machine a request can go out on it just as the close does, and fail with ECONNRESET.
 */
export async function getOnce(url: string): Promise<{ readonly status: number; readonly text: string }> {
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  return within(answer, 5000, `GET ${url}`);
}
