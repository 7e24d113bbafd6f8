// deploy/: the install path the systemd units and the Dockerfile use. `pnpm deploy` copies an app
// with only its production dependencies; the copy must run on its own, outside the workspace.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { pnpm, sh, works } from "./commands.test-helpers.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "handoff-deploy-"));

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

/** Starts a deployed app's bin with free ports and resolves with its "listening" log record. */
async function listening(bin: string, args: readonly string[]): Promise<{ stop: () => Promise<number | null>; record: Record<string, unknown> }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: out, stdio: ["ignore", "pipe", "inherit"] });
  // A safety net for a hung start (the tests' own is 5 minutes), not a budget a loaded machine misses.
  const timer = setTimeout(() => child.kill("SIGKILL"), 5 * 60_000);
  const exited = once(child, "exit").then(([code]) => {
    clearTimeout(timer);
    return code as number | null;
  });
  for await (const line of createInterface({ input: child.stdout })) {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (typeof record["msg"] === "string" && record["msg"].endsWith(" listening")) {
      return {
        record,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      };
    }
  }
  throw new Error(`${bin} exited before it listened`);
}

describe("deploy", () => {
  it("a deployed broker runs outside the workspace and answers /health", async () => {
    // A store without a build of better-sqlite3 for this Node compiles it: minutes, not seconds.
    await pnpm(["--filter", "@handoff/broker", "deploy", "--prod", "--legacy", join(out, "broker")], { cwd: root, timeoutMs: 200_000 });
    const app = await listening(join(out, "broker", "bin", "handoff-broker.js"), ["--port", "0", "--ws-port", "0", "--http-port", "0", "--data-dir", join(out, "data")]);
    const health = await fetch(`http://127.0.0.1:${String(app.record["http"])}/health`);
    expect(health.status).toBe(200);
    expect(await app.stop()).toBe(0);
  }, 240_000);

  it("a deployed relay runs outside the workspace, answers /health and serves the demo page its build bundled", async () => {
    await pnpm(["--filter", "@handoff/relay", "deploy", "--prod", "--legacy", join(out, "relay")], { cwd: root });
    const app = await listening(join(out, "relay", "bin", "handoff-relay.js"), ["--host", "127.0.0.1", "--port", "0", "--demo"]);
    const health = await fetch(`http://127.0.0.1:${String(app.record["http"])}/health`);
    expect(health.status).toBe(200);
    const demo = await Promise.all(["/demo/", "/demo/watch.js"].map((path) => fetch(`http://127.0.0.1:${String(app.record["http"])}${path}`)));
    expect(demo.map((res) => [res.status, res.headers.get("content-type")])).toEqual([
      [200, "text/html; charset=utf-8"],
      [200, "text/javascript; charset=utf-8"],
    ]);
    expect(await app.stop()).toBe(0);
  }, 240_000);

  it("the systemd units pass systemd-analyze verify", async (ctx) => {
    if (!(await works("systemd-analyze", ["--version"]))) ctx.skip("systemd-analyze is not installed here");
    for (const unit of ["handoff-broker.service", "handoff-relay.service"]) {
      const { stderr } = await sh("systemd-analyze", ["verify", join(root, "deploy", "systemd", unit)], { cwd: root, timeoutMs: 30_000 });
      expect(stderr).toBe("");
    }
  }, 60_000);

  it("the Dockerfile builds both images", async (ctx) => {
    if (!(await works("docker", ["info"]))) ctx.skip("no docker daemon answers here");
    for (const target of ["broker", "relay"]) {
      await sh("docker", ["build", "--target", target, "-t", `handoff-${target}:test`, root], { cwd: root, timeoutMs: 600_000 });
    }
  }, 1_300_000);
});
