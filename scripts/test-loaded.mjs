#!/usr/bin/env node
/**
 * `pnpm test:loaded`: the README's test command (`pnpm test`) on a machine kept busy, to show that
 * no test fails for lack of CPU. Beside it runs one busy loop per core at normal priority, so every
 * process of the run waits for a core about as long as when a second run or an install shares the
 * machine. Ends with the skipped tests and their reasons, the failed ones, and "N passed, N failed";
 * exits with the test command's status.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "handoff-test-loaded-"));
const report = join(dir, "report.json");

/** Runs `command` in the workspace root with the terminal's stdio; resolves with its exit status. */
function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: "inherit" });
    child.once("exit", (code, signal) => {
      resolve(code ?? (signal === null ? 1 : 128));
    });
  });
}

const cores = availableParallelism();
const hogs = Array.from({ length: cores }, () => spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" }));
const stopHogs = () => {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill("SIGKILL");
};
process.once("exit", stopHogs);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    stopHogs();
    process.exit(130);
  });
}

console.log(`== pnpm test beside ${String(cores)} busy loop${cores === 1 ? "" : "s"} (one per core)`);
const started = Date.now();
const status = await run("pnpm", ["test"], { ...process.env, HANDOFF_TEST_REPORT: report });
stopHogs();
const minutes = ((Date.now() - started) / 60_000).toFixed(1);

// The summary reads the report (and its skips beside it); without one, lint or typecheck failed.
const summary = join(root, "scripts", "test-summary.mjs");
await run(process.execPath, [summary, "list", `${root}=${report}`]);
const counts = await new Promise((resolve) => {
  let out = "";
  const child = spawn(process.execPath, [summary, "counts", `${root}=${report}`], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  child.stdout.on("data", (chunk) => (out += String(chunk)));
  child.once("exit", () => {
    resolve(out.trim().split(" ").map(Number));
  });
});
rmSync(dir, { recursive: true, force: true });
const [passed = 0, failed = 0] = counts;
// A failed run without a failed test (lint, typecheck, an unhandled error) counts as one failure.
console.log(`under load (${minutes} min): ${String(passed)} passed, ${String(status !== 0 && failed === 0 ? 1 : failed)} failed`);
process.exit(status);
