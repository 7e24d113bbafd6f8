// The apps' bins, as `pnpm exec handoff-broker …` / `pnpm exec handoff-relay …` run them from the
// repository root after `pnpm install` (which builds the apps): every command the READMEs show.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { pnpm } from "./commands.test-helpers.js";

const root = fileURLToPath(new URL("../", import.meta.url));

async function bin(name: string, args: readonly string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(`${root}node_modules/.bin/${name}`, args, { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("the apps' bins", () => {
  it("handoff-broker --help prints the broker's usage", async () => {
    const { code, stdout } = await bin("handoff-broker", ["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: handoff-broker \[options\]/);
  });

  it("handoff-broker passwd writes a password file line", async () => {
    const { code, stdout } = await bin("handoff-broker", ["passwd", "alice"], "wonderland\n");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^alice:\$scrypt\$/);
  });

  it("handoff-broker passwd --scram writes a SCRAM credential", async () => {
    const { code, stdout } = await bin("handoff-broker", ["passwd", "--scram", "bob"], "builder\n");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^bob:\$scram-sha-256\$/);
  });

  it("handoff-relay --help prints the relay's usage", async () => {
    const { code, stdout } = await bin("handoff-relay", ["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: handoff-relay \[options\]/);
  });

  it("a bad flag exits 2 with the app's message", async () => {
    const { code, stderr } = await bin("handoff-relay", ["--port", "nope"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^handoff-relay: --port: not a port number: "nope"/);
  });

  it("a bin whose app is not built says how to build it, by its own name, and exits 2", () => {
    // The built bin (app-kit's src/bin.ts, bundled) in a copy of an app without dist/.
    const app = mkdtempSync(join(tmpdir(), "handoff-bin-"));
    try {
      mkdirSync(join(app, "bin"));
      copyFileSync(join(root, "apps", "relay", "bin", "handoff-relay.js"), join(app, "bin", "handoff-example.js"));
      const { status, stdout, stderr } = spawnSync(process.execPath, [join(app, "bin", "handoff-example.js")], { encoding: "utf8" });
      expect({ status, stdout, stderr }).toEqual({ status: 2, stdout: "", stderr: "handoff-example: not built yet; run `pnpm build` in the repository first\n" });
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it("pnpm --filter <app> exec handoff-<app> --help works, as the apps' READMEs show it", async () => {
    const outputs = await Promise.all(["broker", "relay"].map((app) => pnpm(["--filter", `@handoff/${app}`, "exec", `handoff-${app}`, "--help"], { cwd: root })));
    expect(outputs.map(({ stdout }) => /^Usage: handoff-(broker|relay) \[options\]/m.exec(stdout)?.[1])).toEqual(["broker", "relay"]);
  });

  it("handoff-relay takes the README's CORS, drain and admin settings, serves /metrics on its port to the token, and warns once about a deprecated name", async () => {
    const token = "bins-test-admin-token-0123";
    const child = spawn(`${root}node_modules/.bin/handoff-relay`, ["--host", "127.0.0.1", "--port", "0", "--cors-origin", "https://app.example", "--drain-timeout", "0"], {
      cwd: root,
      env: { ...process.env, HANDOFF_RELAY_ADMIN_TOKEN: token, HANDOFF_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const records: { msg: string; http?: number }[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      records.push(JSON.parse(line) as { msg: string; http?: number });
      if (records.at(-1)?.msg === "relay listening") break;
    }
    const base = `http://127.0.0.1:${String(records.at(-1)?.http ?? 0)}`;
    const preflight = await fetch(`${base}/announced`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "GET" } });
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const exited = once(child, "exit");
    child.kill("SIGINT");
    const [code] = (await exited) as [number | null];
    expect([
      records.filter((record) => record.msg.includes("deprecated")).map((record) => record.msg),
      preflight.status,
      preflight.headers.get("access-control-allow-origin"),
      metrics.status,
      (await metrics.text()).includes('relay_sessions'),
      code,
    ]).toEqual([["HANDOFF_LOG_LEVEL is deprecated and will go away: use HANDOFF_RELAY_LOG_LEVEL"], 204, "https://app.example", 200, true, 0]);
  });
});
