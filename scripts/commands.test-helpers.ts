// Helpers of the workspace tests (scripts/*.test.ts): running commands as a user would.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs a command to completion; rejects with its output when it exits non-zero. */
export async function sh(command: string, args: readonly string[], options: { readonly cwd: string; readonly timeoutMs?: number }): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(command, [...args], { cwd: options.cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 << 20 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`, { cause: err });
  }
}

/** The pinned pnpm, the way CI and the README run it (npx caches it after the first run). */
export function pnpm(args: readonly string[], options: { readonly cwd: string; readonly timeoutMs?: number }): Promise<{ stdout: string; stderr: string }> {
  return sh("npx", ["-y", "pnpm@12.4.2", ...args], options);
}

/** Whether a command runs at all here (docker's client may exist without a daemon). */
export async function works(command: string, args: readonly string[]): Promise<boolean> {
  try {
    await run(command, [...args], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
