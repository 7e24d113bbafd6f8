// The apps' READMEs' commands `pnpm --filter <app> dev -- <flags>` (watch mode) and
// `pnpm --filter <app> start -- <flags>` (the built app), run as a user runs them (the pinned pnpm
// through npx, from the repository root): each starts the app on the ports asked for, and a Ctrl-C
// to its process group stops it all. `start` rebuilds only when a source is newer than dist/, and
// the workspace's global setup has just built both apps, so it cannot race the other tests' dist/.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../", import.meta.url));
const groups: number[] = [];

afterEach(() => {
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

const cases = [
  { app: "broker", flags: ["--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0", "--storage", "memory"] },
  { app: "relay", flags: ["--host", "127.0.0.1", "--port", "0", "--tcp-port", "0", "--metrics-port", "0"] },
] as const;

for (const command of ["dev", "start"] as const) {
  describe(`pnpm --filter <app> ${command}`, () => {
    it.each(cases)(`runs the $app (${command}) on free ports and stops on Ctrl-C`, async ({ app, flags }) => {
      // detached: its own process group, so the test can signal it as a terminal would
      const child = spawn("npx", ["-y", "pnpm@12.4.2", "--filter", `@handoff/${app}`, command, "--", ...flags], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      if (child.pid !== undefined) groups.push(child.pid);
      let text = "";
      const listening = new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes(`"msg":"${app} listening"`)) resolve();
        });
        child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
        child.once("exit", () => {
          reject(new Error(`pnpm ${command} exited before the ${app} listened:\n${text}`));
        });
      });
      await listening;
      // "close": every process holding the output pipe (pnpm, a watcher, the app) is gone.
      const closed = once(child, "close");
      process.kill(-(child.pid ?? 0), "SIGINT");
      await closed;
      expect(text).toContain(`"msg":"${app} stopped"`);
    }, 90_000);
  });
}

describe("pnpm --filter <app> start -- --help", () => {
  it.each(cases)("prints every flag of the $app and exits 0", async ({ app }) => {
    const child = spawn("npx", ["-y", "pnpm@12.4.2", "--filter", `@handoff/${app}`, "start", "--", "--help"], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    if (child.pid !== undefined) groups.push(child.pid);
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(0);
    expect(text).toContain("--port");
    expect(text).toMatch(new RegExp(`HANDOFF_${app.toUpperCase()}_`));
  }, 90_000);
});
