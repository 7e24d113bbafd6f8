// The apps' READMEs' watch-mode command, `pnpm --filter <app> dev -- <flags>`, run as a user runs
// it (the pinned pnpm through npx, from the repository root): it starts the app from its
// TypeScript sources on the ports asked for, and a Ctrl-C to its process group stops it all.
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

describe("pnpm --filter <app> dev", () => {
  it.each(cases)("runs the $app from its sources on free ports and stops on Ctrl-C", async ({ app, flags }) => {
    // detached: its own process group, so the test can signal it as a terminal would
    const child = spawn("npx", ["-y", "pnpm@12.4.2", "--filter", app, "dev", "--", ...flags], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    if (child.pid !== undefined) groups.push(child.pid);
    let text = "";
    const listening = new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes(`"msg":"${app} listening"`)) resolve();
      });
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.once("exit", () => {
        reject(new Error(`pnpm dev exited before the ${app} listened:\n${text}`));
      });
    });
    await listening;
    // "close": every process holding the output pipe (pnpm, tsx's watcher, the app) is gone.
    const closed = once(child, "close");
    process.kill(-(child.pid ?? 0), "SIGINT");
    await closed;
    expect(text).toContain(`"msg":"${app} stopped"`);
  }, 90_000);
});
