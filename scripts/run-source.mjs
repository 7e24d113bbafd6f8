// Runs an app's TypeScript entry point from source (workspace packages resolve to their sources
// through the @handoff/source condition) in a child Node process. Signals are passed on; the exit
// code is the app's. Used by the apps' bins.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** @param {URL} entry the app's src/main.ts */
export function runSource(entry) {
  // Resolved from here, so a bin works from any working directory.
  const tsx = import.meta.resolve("tsx");
  const child = spawn(process.execPath, ["--import", tsx, "--conditions=@handoff/source", fileURLToPath(entry), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      child.kill(signal);
    });
  }
  child.on("exit", (code, signal) => {
    process.exit(code ?? (signal === null ? 1 : 128));
  });
}
