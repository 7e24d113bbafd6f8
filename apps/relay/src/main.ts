import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commandLine, createLogger, runMain, settingsOrExit, stopOnSignals } from "@handoff/app-kit";
import { parseConfig } from "./config/index.js";
import { tuneHeap } from "./heap-tuning.js";

async function main(): Promise<void> {
  // Before the heap grows (see heap-tuning.ts).
  const heapFlag = tuneHeap();
  const warnings: string[] = [];
  const parsed = settingsOrExit("handoff-relay", () =>
    parseConfig(commandLine(), process.env, (path) => readFileSync(path, "utf8"), (warning) => warnings.push(warning)),
  );
  if (parsed.kind === "help") {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  const { config } = parsed;
  const log = createLogger("relay", { level: config.logLevel, pretty: config.logPretty });
  // Deprecated names still work; each one in use is said once, at startup.
  for (const warning of warnings) log.warn(warning);
  if (heapFlag !== undefined) log.debug({ v8: heapFlag }, "V8 heap growth set for a small, fast-allocating heap (a --heap-growing-percent node flag of your own overrides it)");
  const read = (path: string | undefined): Buffer | undefined => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      process.stderr.write(`handoff-relay: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    }
  };
  // Loaded after the flags are read, so a bad flag is reported without loading the relay.
  const { startRelay } = await import("./server/index.js");
  const { relayOptions } = await import("./create-relay.js");
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
  const relay = await startRelay(relayOptions(config, read, { processMetrics: true, ...(demo === undefined ? {} : { demo }) }), log);
  stopOnSignals({
    name: "relay",
    log,
    fields: () => ({ sessions: relay.sessions.size }),
    // SIGTERM drains first (GOAWAY, serve until the sessions leave or the window passes);
    // SIGINT (Ctrl-C) stops at once.
    stop: async (signal) => {
      if (signal === "SIGTERM") await relay.drain({ uri: config.cluster.redirect, timeoutMs: config.cluster.drainTimeoutMs, stopAccepting: true });
      await relay.close();
    },
    // The relay's settings are read once, so it has nothing to reload; without a handler SIGHUP
    // would kill it, and one launcher passes it to both apps.
    hangup: () => {
      log.info("SIGHUP: the relay has nothing to reload (settings change with a restart)");
    },
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
      tls: config.tls.cert !== undefined,
      peers: config.cluster.peers,
      demo: demo === undefined ? undefined : `/demo`,
    },
    "relay listening",
  );
}

runMain("handoff-relay", main);
