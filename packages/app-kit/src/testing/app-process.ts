/**
 * An app's real entry point as a child process, for its `main.test.ts`: started from its
 * TypeScript sources (tsx, workspace packages from source), killed after {@link CHILD_LIMIT_MS} at the latest.
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

/** A started app, the log line that said it listens and every line before it. */
export interface StartedApp<R> {
  readonly child: ChildProcess;
  readonly record: R;
  readonly before: readonly R[];
}

/** How an app is launched beyond its own flags: with node flags (`--heap-growing-percent=100`). */
export interface Launch {
  readonly nodeFlags?: readonly string[];
}

/**
 * A safety net, not a budget: a child still running this long is killed (a hung test must not
 * leave it behind). Compiling an app from its sources took over 15 s on two loaded cores, so the
 * net is the tests' own (test-kit's TEST_TIMEOUT_MS, 5 minutes).
 */
const CHILD_LIMIT_MS = 5 * 60_000;

function spawnEntry(appDir: string, args: readonly string[], stdout: "pipe" | "ignore", launch: Launch = {}): ChildProcess {
  const child = spawn(process.execPath, [...(launch.nodeFlags ?? []), "--import", "tsx", "--conditions=@handoff/source", "src/main.ts", ...args], {
    cwd: appDir,
    stdio: ["ignore", stdout, "pipe"],
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_LIMIT_MS);
  timer.unref();
  child.once("exit", () => {
    clearTimeout(timer);
  });
  return child;
}

/**
 * Starts `src/main.ts` of the app in `appDir` (launched as `launch` says) and resolves with its
 * first log line whose `msg` is `listening`.
 */
export async function startApp<R extends { readonly msg: string }>(appDir: string, args: readonly string[], listening: string, launch: Launch = {}): Promise<StartedApp<R>> {
  const child = spawnEntry(appDir, args, "pipe", launch);
  if (child.stdout === null) throw new Error("no stdout pipe");
  const before: R[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const record = JSON.parse(line) as R;
    if (record.msg === listening) return { child, record, before };
    before.push(record);
  }
  throw new Error(`exited before "${listening}"`);
}

/** Runs `src/main.ts` of the app in `appDir` to its end; resolves with the exit code and what it wrote to stderr. */
export async function runApp(appDir: string, args: readonly string[]): Promise<{ readonly code: number | null; readonly stderr: string }> {
  const child = spawnEntry(appDir, args, "ignore");
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

/** Sends `signal` and resolves with the exit code. */
export async function stopApp(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = once(child, "exit");
  child.kill(signal);
  const [code] = (await exited) as [number | null];
  return code;
}

/** The two checks every app's entry point passes, for {@link entryPointTests}. */
export interface EntryPointCase {
  /** The app's folder (holding `src/main.ts`). */
  readonly appDir: string;
  /** Flags that start it on free loopback ports. */
  readonly args: readonly string[];
  /** The `msg` of the line it logs once it listens. */
  readonly listening: string;
  /** The field of that line holding its main port (`mqtt`, `http`). */
  readonly portField: string;
}

/** What {@link entryPointTests} asks of the test framework (vitest's `it` and `expect`). */
export interface TestApi {
  readonly it: (name: string, test: () => Promise<void>) => void;
  readonly expect: (value: unknown) => { toBe(expected: unknown): void; toBeGreaterThan(expected: number): void; toMatch(expected: RegExp): void };
}

/** Defines the entry point's tests: it listens on the port it logs and exits 0 on SIGINT; a bad flag exits 2 with a message. */
export function entryPointTests({ it, expect }: TestApi, app: EntryPointCase): void {
  it("listens on the port it logs and exits 0 on SIGINT", async () => {
    const { child, record } = await startApp<{ readonly msg: string; readonly [field: string]: unknown }>(app.appDir, app.args, app.listening);
    expect(record[app.portField]).toBeGreaterThan(0);
    expect(await stopApp(child, "SIGINT")).toBe(0);
  });

  it("exits 2 with a message on a bad flag", async () => {
    const { code, stderr } = await runApp(app.appDir, ["--port", "nope"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not a port number/);
  });
}
