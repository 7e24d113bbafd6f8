import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { parsePasswordFile } from "./password-file.js";

const appDir = new URL("../../", import.meta.url).pathname;

async function run(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/auth/hash-password.ts", ...args], { cwd: appDir, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("hash-password", () => {
  it("prints a password file line for the password on standard input", async () => {
    const { code, stdout } = await run(["alice"], "wonderland\n");
    expect([code, [...parsePasswordFile(stdout, "out").keys()]]).toEqual([0, ["alice"]]);
  });

  it("exits 2 with usage without a user name", async () => {
    const { code, stderr } = await run([], "");
    expect([code, stderr.startsWith("usage:")]).toEqual([2, true]);
  });
});
