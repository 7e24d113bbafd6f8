/**
 * Signals and shutdown, the same in both apps: SIGINT and SIGTERM stop once (a Ctrl-C reaches the
 * whole process group, so a signal may come twice), a supervisor that drops its IPC channel (the
 * root `pnpm start`) stops the app like SIGTERM, and SIGHUP never kills it.
 * @module
 */
import type { Logger } from "pino";

/** The part of `process` shutdown handling uses (injected in tests). */
export interface SignalTarget {
  on(event: "SIGINT" | "SIGTERM" | "SIGHUP" | "disconnect", listener: () => void): unknown;
  exit(code: number): void;
}

/** The signals that stop an app. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** What {@link stopOnSignals} needs. */
export interface ShutdownOptions {
  /** The app's name in the log lines: `<name> stopping`, `<name> stopped`. */
  readonly name: string;
  readonly log: Logger;
  /** Stops the app; resolves once it is stopped (then the process exits 0; a rejection exits 1). */
  readonly stop: (signal: StopSignal) => Promise<void>;
  /** Extra fields of the `stopping` line (the relay's open sessions). */
  readonly fields?: () => Readonly<Record<string, unknown>>;
  /** What SIGHUP does (the broker reloads its files; the relay only logs that it has nothing to reload). */
  readonly hangup: () => void;
  /** Default: `process`. */
  readonly target?: SignalTarget;
}

/**
 * Installs the handlers. Call it before logging the line that says the app listens: whoever reads
 * that line may signal at once, and a signal that arrives before its handler kills the process
 * with the default action.
 */
export function stopOnSignals(options: ShutdownOptions): void {
  const target = options.target ?? process;
  const { log, name } = options;
  let stopping = false;
  const stop = (signal: StopSignal): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, ...options.fields?.() }, `${name} stopping`);
    options.stop(signal).then(
      () => {
        log.info(`${name} stopped`);
        target.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, `${name} failed to stop cleanly`);
        target.exit(1);
      },
    );
  };
  target.on("SIGINT", () => {
    stop("SIGINT");
  });
  target.on("SIGTERM", () => {
    stop("SIGTERM");
  });
  target.on("disconnect", () => {
    stop("SIGTERM");
  });
  target.on("SIGHUP", options.hangup);
}
