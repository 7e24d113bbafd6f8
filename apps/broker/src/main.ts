import { pino } from "pino";
import { ConfigError, parseConfig } from "./config.js";
import { listen } from "./listener.js";

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`handoff-broker: ${err.message}\n`);
    process.exit(2);
  }
  if (parsed.kind === "help") {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  const { config } = parsed;
  const log = pino({ name: "broker", level: config.logLevel });
  const listener = await listen({ host: config.host, port: config.port }, log);
  log.info({ mqtt: listener.address.port, host: listener.address.address }, "broker listening");

  // Idempotent: a Ctrl-C reaches the whole process group, so a signal may arrive twice.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "broker stopping");
    listener.close().then(
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
}

main().catch((err: unknown) => {
  process.stderr.write(`handoff-broker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
