import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { parsePasswordFile } from "./password-file.js";
import { passwdUsage, runPasswd } from "./passwd-command.js";

async function run(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
  let stdout = "";
  let stderr = "";
  io.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  io.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  io.stdin.end(stdin);
  const code = await runPasswd(args, io);
  return { code, stdout, stderr };
}

describe("handoff-broker passwd", () => {
  it("prints a password file line for the password on standard input", async () => {
    const { code, stdout } = await run(["alice"], "wonderland\n");
    expect([code, [...parsePasswordFile(stdout, "out").keys()]]).toEqual([0, ["alice"]]);
  });

  it("writes a SCRAM credential with --scram", async () => {
    const { code, stdout } = await run(["--scram", "bob"], "builder\r\n");
    expect([code, parsePasswordFile(stdout, "out").get("bob")?.scheme]).toEqual([0, "scram-sha-256"]);
  });

  it("exits 2 with usage without a user name", async () => {
    const { code, stderr } = await run([], "");
    expect([code, stderr]).toEqual([2, `${passwdUsage}\n`]);
  });

  it("exits 2 when standard input holds no password", async () => {
    const { code, stderr } = await run(["alice"], "");
    expect(code).toBe(2);
    expect(stderr).toMatch(/no password/);
  });
});
