/**
 * What an app's entry point does before and after its own work: read the arguments, turn a
 * configuration error into a message and exit status 2, and anything else into exit status 1.
 * @module
 */
import { ConfigError } from "./config-error.js";

/** The arguments after the script; `pnpm run <script> -- --flag` passes the `--` on (pnpm 12), and it is not a flag. */
export function commandLine(argv: readonly string[] = process.argv): string[] {
  const args = argv.slice(2);
  return args[0] === "--" ? args.slice(1) : args;
}

/** Runs `load`; a {@link ConfigError} is printed as `<command>: <message>` and the process exits 2. */
export function settingsOrExit<T>(command: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n`);
    process.exit(2);
  }
}

/** Runs the app's `main`; what it throws is printed with its stack and the process exits 1. */
export function runMain(command: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${command}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
