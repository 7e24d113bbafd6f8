/**
 * The settings that can also be given as a command-line flag or an environment variable: one
 * table drives the argument parser, the environment reader and the `--help` text, so they cannot
 * drift apart.
 * @module
 */
import { ConfigError } from "./errors.js";
import { DEFAULTS, LOG_LEVELS, STORAGE_KINDS } from "./schema.js";
import { didYouMean } from "./suggest.js";

/** Prefix of every environment variable the broker reads. */
export const ENV_PREFIX = "HANDOFF_BROKER_";

/** How an option's text is turned into a setting. */
export type OptionKind = "port" | "string" | "boolean" | "log-level" | "storage";

/** A setting reachable from the command line and the environment. */
export interface OverrideOption {
  /** Flag name without the leading `--`. */
  readonly flag: string;
  /** Environment variable name. */
  readonly env: string;
  /** Where the value goes in the settings. */
  readonly path: readonly string[];
  /** How the text is parsed. */
  readonly kind: OptionKind;
  /** Placeholder shown in the usage text (empty for a boolean switch). */
  readonly arg: string;
  /** One line of help. */
  readonly help: string;
}

/** Every override, in the order the usage text lists them. */
export const OVERRIDES: readonly OverrideOption[] = [
  { flag: "host", env: `${ENV_PREFIX}HOST`, path: ["host"], kind: "string", arg: "<addr>", help: `interface every listener binds (default ${DEFAULTS.anonymousHost} with anonymous access, else ${DEFAULTS.host})` },
  { flag: "port", env: `${ENV_PREFIX}PORT`, path: ["listeners", "tcp", "port"], kind: "port", arg: "<n>", help: `MQTT over TCP port, 0 picks a free one (default ${String(DEFAULTS.tcpPort)})` },
  { flag: "tls-port", env: `${ENV_PREFIX}TLS_PORT`, path: ["listeners", "tls", "port"], kind: "port", arg: "<n>", help: `MQTT over TLS port (default ${String(DEFAULTS.tlsPort)}; needs --tls-cert and --tls-key)` },
  { flag: "tls-cert", env: `${ENV_PREFIX}TLS_CERT`, path: ["listeners", "tls", "cert"], kind: "string", arg: "<file>", help: "PEM certificate chain for the TLS listener" },
  { flag: "tls-key", env: `${ENV_PREFIX}TLS_KEY`, path: ["listeners", "tls", "key"], kind: "string", arg: "<file>", help: "PEM private key for the TLS listener" },
  { flag: "tls-ca", env: `${ENV_PREFIX}TLS_CA`, path: ["listeners", "tls", "ca"], kind: "string", arg: "<file>", help: "PEM CA bundle to verify client certificates" },
  { flag: "ws-port", env: `${ENV_PREFIX}WS_PORT`, path: ["listeners", "ws", "port"], kind: "port", arg: "<n>", help: `MQTT over WebSocket port (default ${String(DEFAULTS.wsPort)}, path ${DEFAULTS.wsPath})` },
  { flag: "http-port", env: `${ENV_PREFIX}HTTP_PORT`, path: ["http", "port"], kind: "port", arg: "<n>", help: `/health and /metrics port (default ${String(DEFAULTS.httpPort)})` },
  { flag: "data-dir", env: `${ENV_PREFIX}DATA_DIR`, path: ["dataDir"], kind: "string", arg: "<dir>", help: `where persistent state lives (default ${DEFAULTS.dataDir})` },
  { flag: "storage", env: `${ENV_PREFIX}STORAGE`, path: ["storage"], kind: "storage", arg: "<kind>", help: `${STORAGE_KINDS.join("|")} (default ${DEFAULTS.storage})` },
  { flag: "redis-url", env: `${ENV_PREFIX}REDIS_URL`, path: ["redis", "url"], kind: "string", arg: "<url>", help: "redis://[user:password@]host:port[/db] for --storage redis (prefer the environment variable when it holds a password)" },
  { flag: "redis-prefix", env: `${ENV_PREFIX}REDIS_PREFIX`, path: ["redis", "prefix"], kind: "string", arg: "<prefix>", help: `prefix of every Redis key (default ${DEFAULTS.redisPrefix})` },
  { flag: "node-id", env: `${ENV_PREFIX}NODE_ID`, path: ["cluster", "nodeId"], kind: "string", arg: "<id>", help: "this node's id in a Redis cluster, stable across restarts (default: the host name)" },
  { flag: "set-aside-corrupt", env: `${ENV_PREFIX}SET_ASIDE_CORRUPT`, path: ["setAsideCorrupt"], kind: "boolean", arg: "", help: "move a damaged or foreign database file aside (with a warning) and start empty, instead of refusing to start" },
  { flag: "log-level", env: `${ENV_PREFIX}LOG_LEVEL`, path: ["logLevel"], kind: "log-level", arg: "<level>", help: `${LOG_LEVELS.join("|")} (default ${DEFAULTS.logLevel})` },
  { flag: "log-pretty", env: `${ENV_PREFIX}LOG_PRETTY`, path: ["logPretty"], kind: "boolean", arg: "", help: "human-readable logs instead of JSON lines (for development)" },
  { flag: "allow-anonymous", env: `${ENV_PREFIX}ALLOW_ANONYMOUS`, path: ["auth", "allowAnonymous"], kind: "boolean", arg: "<bool>", help: "accept clients without a user name (default: true without a password file, false with one)" },
  { flag: "password-file", env: `${ENV_PREFIX}PASSWORD_FILE`, path: ["auth", "passwordFile"], kind: "string", arg: "<file>", help: "user:hash lines, written by `handoff-broker passwd <user>`" },
  { flag: "acl-file", env: `${ENV_PREFIX}ACL_FILE`, path: ["auth", "aclFile"], kind: "string", arg: "<file>", help: "topic access rules; without one every client may use every topic" },
  { flag: "admin-token", env: `${ENV_PREFIX}ADMIN_TOKEN`, path: ["admin", "token"], kind: "string", arg: "<secret>", help: "turns on the admin API (/api/v1) and dashboard (/dashboard) on the HTTP port, behind this bearer token (at least 16 characters; prefer the environment variable, a flag shows in the process list)" },
];

/** The environment variable naming the config file (the flag is `--config`). */
export const CONFIG_ENV = `${ENV_PREFIX}CONFIG`;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** Parses the text of `option` given under `source` (`--port`, `HANDOFF_BROKER_PORT`). */
export function parseOptionValue(option: OverrideOption, text: string, source: string): string | number | boolean {
  switch (option.kind) {
    case "port": {
      const trimmed = text.trim();
      if (!/^\d{1,5}$/.test(trimmed) || Number(trimmed) > 65_535) {
        throw new ConfigError(`${source}: not a port number: ${JSON.stringify(text)} (expected 0..65535; 0 picks a free port)`);
      }
      return Number(trimmed);
    }
    case "boolean": {
      const lower = text.trim().toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw new ConfigError(`${source}: expected true or false, got ${JSON.stringify(text)}`);
    }
    case "log-level":
      return oneOf(text, LOG_LEVELS, source, "log level");
    case "storage":
      return oneOf(text, STORAGE_KINDS, source, "storage kind");
    case "string":
      if (text === "") throw new ConfigError(`${source}: must not be empty`);
      return text;
  }
}

function oneOf(text: string, allowed: readonly string[], source: string, what: string): string {
  if (allowed.includes(text)) return text;
  throw new ConfigError(`${source}: unknown ${what} ${JSON.stringify(text)}, expected one of ${allowed.join(", ")}${didYouMean(text, allowed)}`);
}
