// The apps' bins, as `pnpm exec handoff-broker …` / `pnpm exec handoff-relay …` run them from the
// repository root after `pnpm install` (which builds the apps): every command the READMEs show.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

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
});
