// `node scripts/start.mjs` (and `pnpm start`): builds the broker and the relay (tsup, about a
// second each), then runs both from their built `dist/`, side by side. SIGINT, SIGTERM and SIGHUP
// are passed on to both; it exits 0 once both stopped cleanly, 1 if either failed, 2 on a bad flag.
//
//   node scripts/start.mjs [shared flags] [--broker <broker flags…>] [--relay <relay flags…>]
//
// Shared flags go to both apps; everything after --broker (up to --relay) goes to the broker only,
// and the other way round.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { apps, buildApps } from "./build.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));

const usage = `Usage: node scripts/start.mjs [shared flags] [--broker <flags…>] [--relay <flags…>]

Builds and runs the broker and the relay. Shared flags, passed to both:
  --log-level <level>   trace|debug|info|warn|error|fatal|silent
  --log-pretty          human-readable logs instead of JSON lines
  --no-build            run the existing dist/ builds without rebuilding
  --help                print this and exit
Every flag after --broker goes to the broker only (handoff-broker --help lists them), every flag
after --relay to the relay only (handoff-relay --help).

Ctrl-C (SIGINT) or SIGTERM stops both cleanly (SIGTERM lets the relay drain its sessions first); a
second Ctrl-C kills them at once. SIGHUP is passed on (the broker reloads its password and ACL files).`;

/** Splits argv into the shared flags and each app's own, or returns an error message. */
function parse(argv) {
  const own = { broker: [], relay: [] };
  const shared = [];
  let build = true;
  let target;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === "--") continue; // `pnpm start -- --flag` passes the separator on
    if (arg === "--broker" || arg === "--relay") {
      target = arg.slice(2);
      continue;
    }
    if (target !== undefined) {
      own[target].push(arg);
      continue;
    }
    if (arg === "--help") return { help: true };
    if (arg === "--no-build") build = false;
    else if (arg === "--log-pretty") shared.push(arg);
    else if (arg === "--log-level" && argv[i + 1] !== undefined) shared.push(arg, argv[(i += 1)]);
    else if (arg.startsWith("--log-level=")) shared.push(arg);
    else return { error: `unknown shared flag: ${arg} (app flags go after --broker or --relay)` };
  }
  return { build, args: { broker: [...shared, ...own.broker], relay: [...shared, ...own.relay] } };
}

const parsed = parse(process.argv.slice(2));
if (parsed.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (parsed.error !== undefined) {
  process.stderr.write(`start: ${parsed.error}\n\n${usage}\n`);
  process.exit(2);
}

// A signal before the apps run (while building) stops the launcher at once, cleanly.
let stopping = false;
const early = () => {
  stopping = true;
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, early);

if (parsed.build && !(await buildApps())) {
  process.stderr.write("start: the build failed (see above)\n");
  process.exit(1);
}
if (stopping) process.exit(0);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.off(signal, early);

const children = apps.map((app) =>
  spawn(process.execPath, ["--enable-source-maps", "dist/main.js", ...parsed.args[app]], {
    cwd: `${root}apps/${app}`,
    // the IPC channel lets an app notice when this launcher dies, even by SIGKILL
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  }),
);

let exitCode = 0;
let running = children.length;
let interrupts = 0;
const alive = (child) => child.exitCode === null && child.signalCode === null;
const stopAll = (signal) => {
  stopping = true;
  for (const child of children) if (alive(child)) child.kill(signal);
};

children.forEach((child, i) => {
  child.on("exit", (code, signal) => {
    running -= 1;
    if (code !== 0) {
      if (exitCode === 0) exitCode = 1;
      process.stderr.write(`${apps[i]} exited with ${code ?? signal}\n`);
    }
    // one app dying takes the other down: a half-running pair is worse than a clear failure
    if (!stopping) stopAll("SIGTERM");
    if (running === 0) process.exit(exitCode);
  });
});
process.on("SIGINT", () => {
  interrupts += 1;
  // A Ctrl-C reaches the apps directly as well (one process group); the second one forces.
  if (interrupts > 1) {
    process.stderr.write("start: second interrupt, killing both apps\n");
    exitCode = 130;
    stopAll("SIGKILL");
  } else stopAll("SIGINT");
});
process.on("SIGTERM", () => stopAll("SIGTERM"));
process.on("SIGHUP", () => {
  for (const child of children) if (alive(child)) child.kill("SIGHUP");
});

// A wrapper that exits on a signal without passing it on (pnpm on SIGTERM) orphans this process:
// notice and stop the apps then.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && !stopping) stopAll("SIGTERM");
}, 500).unref();
