/**
 * The relay's flags and environment variables: one table drives the argument parser, the
 * environment reader and the `--help` text. Every variable is `HANDOFF_RELAY_` plus the flag in
 * upper snake case; the two secrets have a variable and no flag (a flag shows in the process list).
 * @module
 */
import { LOG_LEVELS, optionSections, type OverrideOption } from "@handoff/app-kit";

/** Prefix of every environment variable the relay reads. */
export const ENV_PREFIX = "HANDOFF_RELAY_";

/** The environment variable naming the config file (the flag is `--config`). */
export const CONFIG_ENV = `${ENV_PREFIX}CONFIG`;

/** Every override, in the order the usage text lists them. */
export const OVERRIDES: readonly OverrideOption[] = [
  { flag: "host", env: `${ENV_PREFIX}HOST`, path: ["host"], kind: "string", arg: "<addr>", help: "interface of the WebSocket + HTTP port (default 0.0.0.0)" },
  { flag: "internal-host", env: `${ENV_PREFIX}INTERNAL_HOST`, path: ["internalHost"], kind: "string", arg: "<addr>", help: "interface of the raw-TCP and metrics ports (default 127.0.0.1)" },
  { flag: "port", env: `${ENV_PREFIX}PORT`, path: ["port"], kind: "port", arg: "<n>", help: "WebSocket + HTTP port, 0 = any free one (default 4443)" },
  { flag: "tcp-port", env: `${ENV_PREFIX}TCP_PORT`, path: ["tcpPort"], kind: "port", arg: "<n>", help: "qmux over raw TCP for relay links (off by default)" },
  { flag: "metrics-port", env: `${ENV_PREFIX}METRICS_PORT`, path: ["metricsPort"], kind: "port", arg: "<n>", help: "Prometheus /metrics and POST /goaway on their own port (off: /metrics on --port, behind the admin token)" },
  { flag: "log-level", env: `${ENV_PREFIX}LOG_LEVEL`, deprecatedEnv: "HANDOFF_LOG_LEVEL", path: ["logLevel"], kind: { oneOf: LOG_LEVELS, what: "log level" }, arg: "<level>", help: `${LOG_LEVELS.join("|")} (default info)` },
  { flag: "demo", env: `${ENV_PREFIX}DEMO`, path: ["demo"], kind: "boolean", arg: "", help: "serve the demo page at /demo: a test pattern published and watched back" },
  { flag: "log-pretty", env: `${ENV_PREFIX}LOG_PRETTY`, path: ["logPretty"], kind: "boolean", arg: "", help: "human-readable logs instead of JSON lines (for development)" },
  { flag: "tls-cert", env: `${ENV_PREFIX}TLS_CERT`, path: ["tls", "cert"], kind: "string", arg: "<file>", help: "serve HTTPS/WSS on --port and qmux over TLS on --tcp-port (needs --tls-key)" },
  { flag: "tls-key", env: `${ENV_PREFIX}TLS_KEY`, path: ["tls", "key"], kind: "string", arg: "<file>", help: "the certificate's key" },
  { flag: "peer", env: `${ENV_PREFIX}PEER`, deprecatedEnv: `${ENV_PREFIX}PEERS`, path: ["cluster", "peers"], kind: "list", arg: "<url>", help: "link to a peer relay, repeatable (comma-separated in the variable): tcp:// or tls://host:port?cost=N, ws(s)://host:port/path" },
  { flag: "redirect", env: `${ENV_PREFIX}REDIRECT`, path: ["cluster", "redirect"], kind: "text", arg: "<uri>", help: "GOAWAY URI sent when draining on SIGTERM; empty = reconnect here" },
  { flag: "drain-timeout", env: `${ENV_PREFIX}DRAIN_TIMEOUT`, path: ["cluster", "drainTimeoutMs"], kind: "ms", arg: "<ms>", help: "how long a drain keeps serving (default 10000, 0 = close at once)" },
  { flag: "cors-origin", env: `${ENV_PREFIX}CORS_ORIGIN`, path: ["corsOrigins"], kind: "list", arg: "<origin>", help: "a page origin (https://app.example, or *) that may read /announced and /fetch, repeatable (default none)" },
  { env: `${ENV_PREFIX}AUTH_KEY`, path: ["auth", "key"], kind: "string", arg: "", help: "the JWT key (HS256, at least 16 characters; file: auth.key)" },
  { env: `${ENV_PREFIX}ADMIN_TOKEN`, path: ["admin", "token"], kind: "string", arg: "", help: "bearer token of POST /goaway and of /metrics on --port (at least 16 characters; file: admin.token)" },
];

/** The `--help` text. */
export function usage(): string {
  return [
    "Usage: handoff-relay [options]",
    "",
    "A moq-lite relay: WebSocket (qmux / webtransport framing) and HTTP on --port, qmux over raw",
    "TCP on --tcp-port. Settings come from, lowest to highest precedence: built-in defaults, the",
    "config file (YAML), environment variables, then flags.",
    "",
    ...optionSections(OVERRIDES, CONFIG_ENV),
    "",
    "SIGTERM drains (GOAWAY to every session, serve until they leave or the drain timeout passes) and",
    "stops; SIGINT stops at once. POST /goaway?uri=<uri>&timeout=<ms> on the metrics port drains the",
    "current sessions without stopping; it needs the bearer token admin.token and a target among the",
    "peers or the redirect. Without a JWT key every connection may publish and subscribe everywhere.",
    "Booleans accept true/false, 1/0, yes/no, on/off.",
  ].join("\n");
}
