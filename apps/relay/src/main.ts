import { pino } from "pino";
import { ConfigError, parseConfig } from "./config.js";
import { listenHttp } from "./http.js";

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`handoff-relay: ${err.message}\n`);
    process.exit(2);
  }
  if (parsed.kind === "help") {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  const { config } = parsed;
  const log = pino({ name: "relay", level: config.logLevel });
  const listener = await listenHttp({ host: config.host, port: config.port }, log);
  log.info({ http: listener.address.port, host: listener.address.address }, "relay listening");

  // Idempotent: a Ctrl-C reaches the whole process group, so a signal may arrive twice.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "relay stopping");
    listener.close().then(
      () => {
        log.info("relay stopped");
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, "relay failed to stop cleanly");
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
}

main().catch((err: unknown) => {
  process.stderr.write(`handoff-relay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
