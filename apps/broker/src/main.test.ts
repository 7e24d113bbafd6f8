import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";

const appDir = new URL("../", import.meta.url).pathname;

/** Starts the real entry point as a child process and returns it with its first log line. */
async function start(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@handoff/source", "src/main.ts", ...args], {
    cwd: appDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  child.once("exit", () => {
    clearTimeout(timer);
  });
  for await (const line of lines) {
    const record = JSON.parse(line) as { msg: string; mqtt?: number };
    if (record.msg === "broker listening") return { child, record };
  }
  throw new Error("broker exited before it listened");
}

describe("handoff-broker process", () => {
  it("listens on the port it logs and exits 0 on SIGINT", async () => {
    const { child, record } = await start(["--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0", "--storage", "memory"]);
    expect(record.mqtt).toBeGreaterThan(0);
    const exited = once(child, "exit");
    child.kill("SIGINT");
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });

  it("exits 2 with a message on a bad flag", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@handoff/source", "src/main.ts", "--port", "nope"], {
      cwd: appDir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/not a port number/);
  });
});
