#!/usr/bin/env node
// handoff-relay: runs the relay from its TypeScript sources (workspace packages resolve to
// their sources through the @handoff/source condition). Signals are passed on; the exit code is
// the relay's.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
// Resolved from here, so the bin works from any working directory.
const tsx = import.meta.resolve("tsx");
const child = spawn(process.execPath, ["--import", tsx, "--conditions=@handoff/source", main, ...process.argv.slice(2)], {
  stdio: "inherit",
  cwd: process.cwd(),
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    child.kill(signal);
  });
}
child.on("exit", (code, signal) => {
  process.exit(code ?? (signal === null ? 1 : 128));
});
