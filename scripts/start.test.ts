// The README's run command ends in `node scripts/start.mjs`: these tests signal that outermost
// process (or its whole process group, as a terminal's Ctrl-C does) and check that both apps stop
// cleanly and the launcher exits 0. Free ports only: the defaults may be taken on a CI machine.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../", import.meta.url));
const freePorts = ["--broker", "--port", "0", "--ws-port", "0", "--http-port", "0", "--storage", "memory", "--relay", "--port", "0"];

interface Launch {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves once the output matches. */
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

const launched: ChildProcess[] = [];

function launch(args: readonly string[]): Launch {
  // detached: its own process group, so a test can signal the group as a terminal would
  const child = spawn(process.execPath, ["scripts/start.mjs", "--no-build", ...args], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  launched.push(child);
  let text = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const onData = (chunk: Buffer): void => {
    text += chunk.toString();
    for (const w of waiters.filter((x) => x.pattern.test(text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    child,
    output: () => text,
    waitFor: (pattern) =>
      pattern.test(text)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            waiters.push({ pattern, resolve });
            void exited.then(() => {
              if (!pattern.test(text)) reject(new Error(`launcher exited before ${String(pattern)}:\n${text}`));
            });
          }),
    exited,
  };
}

/** Both apps are up once each logged its listening line. */
async function started(run: Launch): Promise<void> {
  await run.waitFor(/broker listening/);
  await run.waitFor(/relay listening/);
}

function group(run: Launch, signal: NodeJS.Signals): void {
  const pid = run.child.pid;
  if (pid === undefined) throw new Error("launcher has no pid");
  process.kill(-pid, signal);
}

afterEach(() => {
  for (const child of launched.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
  }
});

describe("node scripts/start.mjs", () => {
  it("stops both apps and exits 0 on Ctrl-C (SIGINT to the process group)", async () => {
    const run = launch(freePorts);
    await started(run);
    group(run, "SIGINT");
    expect(await run.exited).toEqual([0, null]);
    expect(run.output()).toMatch(/broker stopped/);
    expect(run.output()).toMatch(/relay stopped/);
  });

  it("passes SIGTERM to the launcher alone on to both apps and exits 0", async () => {
    const run = launch(freePorts);
    await started(run);
    run.child.kill("SIGTERM");
    expect(await run.exited).toEqual([0, null]);
    expect(run.output()).toMatch(/drain over/);
    expect(run.output()).toMatch(/broker stopped/);
  });

  it("passes SIGHUP on: the broker reloads, the relay keeps running", async () => {
    const run = launch(freePorts);
    await started(run);
    run.child.kill("SIGHUP");
    await run.waitFor(/auth files reloaded/);
    await run.waitFor(/relay has nothing to reload/);
    expect(run.child.exitCode).toBeNull();
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual([0, null]);
  });

  it("passes the shared --log-pretty to both apps", async () => {
    const run = launch(["--log-pretty", ...freePorts]);
    await started(run);
    expect(run.output()).toMatch(/INFO \(broker\/\d+\): broker listening/);
    expect(run.output()).toMatch(/INFO \(relay\/\d+\): relay listening/);
    group(run, "SIGINT");
    expect(await run.exited).toEqual([0, null]);
  });

  it("refuses an app flag given as a shared flag with exit code 2", async () => {
    const run = launch(["--port", "0"]);
    expect(await run.exited).toEqual([2, null]);
    expect(run.output()).toMatch(/unknown shared flag: --port \(app flags go after --broker or --relay\)/);
  });

  it("stops the other app and exits 1 when one app fails to start", async () => {
    const run = launch(["--broker", "--port", "nope", "--relay", "--port", "0"]);
    expect(await run.exited).toEqual([1, null]);
    expect(run.output()).toMatch(/not a port number/);
    expect(run.output()).toMatch(/broker exited with 2/);
  });
});
