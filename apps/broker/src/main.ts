import { readFileSync } from "node:fs";
import { commandLine, createLogger, runMain, settingsOrExit, stopOnSignals } from "@handoff/app-kit";
import { loadConfig } from "./config/index.js";
import { startServer } from "./server.js";
import { StoreOpenError } from "./storage/index.js";

async function main(): Promise<void> {
  const [command, ...rest] = commandLine();
  if (command === "passwd") {
    // Loaded on demand, so the server's modules are not loaded for a one-line hash.
    const { runPasswd } = await import("./auth/passwd-command.js");
    process.exitCode = await runPasswd(rest, process);
    return;
  }
  const parsed = settingsOrExit("handoff-broker", () => loadConfig(commandLine(), process.env, (path) => readFileSync(path, "utf8")));
  if (parsed.kind === "help") {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  const { config } = parsed;
  const log = createLogger("broker", { level: config.logLevel, pretty: config.logPretty });
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
  stopOnSignals({
    name: "broker",
    log,
    stop: () => server.close(),
    hangup: () => {
      server.reload().catch((err: unknown) => {
        log.error({ err }, "auth reload failed; keeping the previous files");
      });
    },
  });
  // One line with every chosen port, so `--port 0` runs can be found by scripts (after the signal
  // handlers: whoever reads it may signal at once).
  log.info({ ...server.ports, storage: config.storage, dataDir: config.storage === "sqlite" ? config.dataDir : undefined }, "broker listening");
}

runMain("handoff-broker", main);
