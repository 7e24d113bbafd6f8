import { readFileSync } from "node:fs";
import { pino, type Logger } from "pino";
import { ConfigError, loadConfig } from "./config/index.js";
import { startServer } from "./server.js";
import { StoreOpenError } from "./storage/index.js";

// `pnpm run <script> -- --flag` passes the `--` on to the script (pnpm 12); it is not a flag.
function args(): string[] {
  const argv = process.argv.slice(2);
  return argv[0] === "--" ? argv.slice(1) : argv;
}

function parse() {
  try {
    return loadConfig(args(), process.env, (path) => readFileSync(path, "utf8"));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`handoff-broker: ${err.message}\n`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = args();
  if (command === "passwd") {
    // Loaded on demand, so the server's modules are not loaded for a one-line hash.
    const { runPasswd } = await import("./auth/passwd-command.js");
    process.exitCode = await runPasswd(rest, process);
    return;
  }
  const parsed = parse();
  if (parsed.kind === "help") {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  const { config } = parsed;
  const log: Logger = pino({
    name: "broker",
    level: config.logLevel,
    ...(config.logPretty ? { transport: { target: "pino-pretty" } } : {}),
  });
  let server;
  try {
    server = await startServer(config, log);
  } catch (err) {
    if (!(err instanceof StoreOpenError)) throw err;
    process.stderr.write(`handoff-broker: ${err.message}\n`);
    process.exit(1);
  }
  // Last line of defence: a rejection nobody handled is a bug in one connection's continuation,
  // not a reason to drop every client. Logged and counted; the per-connection guard catches the rest.
  process.on("unhandledRejection", (err: unknown) => {
    server.broker.counters.handlerErrors += 1;
    log.error({ err }, "unhandled rejection; the broker keeps running");
  });
  process.on("SIGHUP", () => {
    server.reload().catch((err: unknown) => {
      log.error({ err }, "auth reload failed; keeping the previous files");
    });
  });
  // Idempotent: a Ctrl-C reaches the whole process group, so a signal may arrive twice.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "broker stopping");
    server.close().then(
      () => {
        log.info("broker stopped");
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, "broker failed to stop cleanly");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Started by a supervisor with an IPC channel (the root `pnpm start`): stop when it goes away.
  process.on("disconnect", () => {
    stop("SIGTERM");
  });
  // One line with every chosen port, so `--port 0` runs can be found by scripts. Logged only once
  // the signal handlers are in place: whoever reads it may signal at once, and a signal that
  // arrives before its handler kills the process with the default action.
  log.info({ ...server.ports, storage: config.storage, dataDir: config.storage === "sqlite" ? config.dataDir : undefined }, "broker listening");
}

main().catch((err: unknown) => {
  process.stderr.write(`handoff-broker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
