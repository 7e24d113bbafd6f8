// `pnpm start`: runs the broker and the relay side by side with their defaults. A signal to this
// process is passed on to both; it exits once both have stopped, non-zero if either failed.
import { spawn } from "node:child_process";

const root = new URL("../", import.meta.url).pathname;
const apps = ["broker", "relay"];
const extra = process.argv.slice(2);

const children = apps.map((app) =>
  spawn(process.execPath, ["--import", "tsx", "--conditions=@handoff/source", "src/main.ts", ...extra], {
    cwd: `${root}apps/${app}`,
    // the IPC channel lets an app notice when this supervisor dies, even by SIGKILL
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  }),
);

let exitCode = 0;
let stopping = false;
let running = children.length;
const stopAll = (signal) => {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};

children.forEach((child, i) => {
  child.on("exit", (code, signal) => {
    running -= 1;
    if (code !== 0) {
      exitCode = 1;
      process.stderr.write(`${apps[i]} exited with ${code ?? signal}\n`);
    }
    // one app dying takes the other down: a half-running pair is worse than a clear failure
    stopAll("SIGTERM");
    if (running === 0) process.exit(exitCode);
  });
});
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

// pnpm exits on SIGTERM without passing it on; notice being orphaned and stop the apps then.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stopAll("SIGTERM");
}, 500).unref();
