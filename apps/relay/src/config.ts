import { parseArgs } from "node:util";

/** The relay's resolved settings. */
export interface RelayConfig {
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
}

/** Defaults used when neither a flag nor an environment variable says otherwise. */
export const defaults: RelayConfig = { host: "0.0.0.0", port: 4443, logLevel: "info" };

/** Thrown for a flag or variable the relay cannot use; main prints it and exits 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const usage = `Usage: handoff-relay [options]

  --host <addr>        interface to bind (default ${defaults.host}, env HANDOFF_RELAY_HOST)
  --port <n>           WebSocket and HTTP port, 0 picks a free one (default ${String(defaults.port)}, env HANDOFF_RELAY_PORT)
  --log-level <level>  trace|debug|info|warn|error|fatal (default ${defaults.logLevel}, env HANDOFF_LOG_LEVEL)
  --help               print this and exit`;

/** The result of reading argv: either settings to run with or help text to print. */
export type ParsedArgs = { readonly kind: "run"; readonly config: RelayConfig } | { readonly kind: "help"; readonly text: string };

const levels = new Set(["trace", "debug", "info", "warn", "error", "fatal", "silent"]);

function port(value: string, source: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new ConfigError(`${source}: not a port number: ${value}`);
  return Number(value);
}

/** Reads flags (which win) and environment variables over the defaults. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError(`${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
  }
  if (values.help === true) return { kind: "help", text: usage };
  const envPort = env["HANDOFF_RELAY_PORT"];
  const logLevel = values["log-level"] ?? env["HANDOFF_LOG_LEVEL"] ?? defaults.logLevel;
  if (!levels.has(logLevel)) throw new ConfigError(`unknown log level: ${logLevel}`);
  return {
    kind: "run",
    config: {
      host: values.host ?? env["HANDOFF_RELAY_HOST"] ?? defaults.host,
      port:
        values.port !== undefined
          ? port(values.port, "--port")
          : envPort !== undefined
            ? port(envPort, "HANDOFF_RELAY_PORT")
            : defaults.port,
      logLevel,
    },
  };
}
