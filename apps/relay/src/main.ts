import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { ConfigError, parseConfig } from "./config/index.js";

// `pnpm run <script> -- --flag` passes the `--` on to the script (pnpm 12); it is not a flag.
function args(): string[] {
  const argv = process.argv.slice(2);
  return argv[0] === "--" ? argv.slice(1) : argv;
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseConfig(args(), process.env, (path) => readFileSync(path, "utf8"));
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
  const log = pino({
    name: "relay",
    level: config.logLevel,
    ...(config.logPretty ? { transport: { target: "pino-pretty" } } : {}),
  });
  const read = (path: string | undefined): Buffer | undefined => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      process.stderr.write(`handoff-relay: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    }
  };
  const cert = read(config.tls.cert);
  const key = read(config.tls.key);
  const ca = read(config.tls.ca);
  // Loaded after the flags are read, so a bad flag is reported without loading the relay.
  const { startRelay } = await import("./server/index.js");
  const { DemoNotBuiltError, loadDemo } = await import("./demo/index.js");
  let demo;
  try {
    // The build's output: dist/demo, next to dist/main.js and reached the same way from src/main.ts.
    demo = config.demo ? loadDemo(fileURLToPath(new URL("../dist/demo/", import.meta.url))) : undefined;
  } catch (err) {
    if (!(err instanceof DemoNotBuiltError)) throw err;
    process.stderr.write(`handoff-relay: ${err.message}\n`);
    process.exit(2);
  }
  const relay = await startRelay(
    {
      host: config.host,
      internalHost: config.internalHost,
      port: config.port,
      tcpPort: config.tcpPort,
      metricsPort: config.metricsPort,
      processMetrics: true,
      auth: config.auth,
      tcpAccess: config.tcpAccess,
      limits: config.limits,
      trackLingerMs: config.trackLingerMs,
      closeGraceMs: config.closeGraceMs,
      redirect: config.cluster.redirect,
      ...(config.adminToken === undefined ? {} : { adminToken: config.adminToken }),
      ...(config.hopId === undefined ? {} : { hopId: config.hopId }),
      ...(cert === undefined || key === undefined ? {} : { tls: { cert, key } }),
      ...(demo === undefined ? {} : { demo }),
      cluster: {
        ...(ca === undefined ? {} : { ca }),
        peers: config.cluster.peers,
        timing: { handoverTimeoutMs: config.cluster.handoverTimeoutMs, dialTimeoutMs: config.cluster.dialTimeoutMs },
      },
    },
    log,
  );
  // Idempotent: a Ctrl-C reaches the whole process group, so a signal may arrive twice.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, sessions: relay.sessions.size }, "relay stopping");
    // SIGTERM drains first (GOAWAY, serve until the sessions leave or the window passes);
    // SIGINT (Ctrl-C) stops at once.
    const drained =
      signal === "SIGTERM"
        ? relay.drain({ uri: config.cluster.redirect, timeoutMs: config.cluster.drainTimeoutMs, stopAccepting: true })
        : Promise.resolve();
    drained.then(() => relay.close()).then(
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
  // Without a handler SIGHUP would kill the relay; the broker reloads on it, and one launcher
  // passes it to both. The relay's settings are read once, so it has nothing to reload.
  process.on("SIGHUP", () => {
    log.info("SIGHUP: the relay has nothing to reload (settings change with a restart)");
  });
  // Started by a supervisor with an IPC channel (the root `pnpm start`): stop when it goes away.
  process.on("disconnect", () => {
    stop("SIGTERM");
  });
  // Logged only once the handlers are in place: whoever reads this line may signal at once.
  log.info(
    {
      host: config.host,
      internalHost: config.internalHost,
      http: relay.ports.http,
      tcp: relay.ports.tcp,
      metrics: relay.ports.metrics,
      hopId: relay.origin.hopId,
      auth: config.auth.key !== undefined,
      tls: cert !== undefined,
      peers: config.cluster.peers,
      demo: demo === undefined ? undefined : `/demo`,
    },
    "relay listening",
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`handoff-relay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
