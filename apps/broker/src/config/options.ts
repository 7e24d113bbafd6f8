/**
 * The settings that can also be given as a command-line flag or an environment variable: one
 * table drives the argument parser, the environment reader and the `--help` text, so they cannot
 * drift apart. Every variable is `HANDOFF_BROKER_` plus the flag in upper snake case.
 * @module
 */
import { LOG_LEVELS, type OptionKind, type OverrideOption } from "@handoff/app-kit";
import { DEFAULTS, STORAGE_KINDS } from "./schema.js";

/** Prefix of every environment variable the broker reads. */
export const ENV_PREFIX = "HANDOFF_BROKER_";

/** A setting reachable from the command line and the environment (app-kit's option table row). */
export type { OverrideOption } from "@handoff/app-kit";

const LOG_LEVEL: OptionKind = { oneOf: LOG_LEVELS, what: "log level" };
const STORAGE: OptionKind = { oneOf: STORAGE_KINDS, what: "storage kind" };

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
  { flag: "storage", env: `${ENV_PREFIX}STORAGE`, path: ["storage", "kind"], kind: STORAGE, arg: "<kind>", help: `${STORAGE_KINDS.join("|")} (default ${DEFAULTS.storage})` },
  { flag: "redis-url", env: `${ENV_PREFIX}REDIS_URL`, path: ["storage", "url"], kind: "string", arg: "<url>", help: "redis://[user:password@]host:port[/db] for --storage redis (prefer the environment variable when it holds a password)" },
  { flag: "redis-prefix", env: `${ENV_PREFIX}REDIS_PREFIX`, path: ["storage", "prefix"], kind: "string", arg: "<prefix>", help: `prefix of every Redis key (default ${DEFAULTS.redisPrefix})` },
  { flag: "node-id", env: `${ENV_PREFIX}NODE_ID`, path: ["cluster", "nodeId"], kind: "string", arg: "<id>", help: "this node's id in a Redis cluster, stable across restarts (default: the host name)" },
  { flag: "node-timeout-ms", env: `${ENV_PREFIX}NODE_TIMEOUT_MS`, path: ["cluster", "nodeTimeoutMs"], kind: "ms", arg: "<ms>", help: `a node whose heartbeat is not renewed for this long is dead and a survivor adopts its sessions (default ${String(DEFAULTS.nodeTimeoutMs)})` },
  { flag: "set-aside-corrupt", env: `${ENV_PREFIX}SET_ASIDE_CORRUPT`, path: ["setAsideCorrupt"], kind: "boolean", arg: "", help: "move a damaged or foreign database file aside (with a warning) and start empty, instead of refusing to start" },
  { flag: "log-level", env: `${ENV_PREFIX}LOG_LEVEL`, path: ["logLevel"], kind: LOG_LEVEL, arg: "<level>", help: `${LOG_LEVELS.join("|")} (default ${DEFAULTS.logLevel})` },
  { flag: "log-pretty", env: `${ENV_PREFIX}LOG_PRETTY`, path: ["logPretty"], kind: "boolean", arg: "", help: "human-readable logs instead of JSON lines (for development)" },
  { flag: "allow-anonymous", env: `${ENV_PREFIX}ALLOW_ANONYMOUS`, path: ["auth", "allowAnonymous"], kind: "boolean", arg: "<bool>", help: "accept clients without a user name (default: true without a password file, false with one)" },
  { flag: "password-file", env: `${ENV_PREFIX}PASSWORD_FILE`, path: ["auth", "passwordFile"], kind: "string", arg: "<file>", help: "user:hash lines, written by `handoff-broker passwd <user>`" },
  { flag: "acl-file", env: `${ENV_PREFIX}ACL_FILE`, path: ["auth", "aclFile"], kind: "string", arg: "<file>", help: "topic access rules; without one every client may use every topic" },
  { flag: "admin-token", env: `${ENV_PREFIX}ADMIN_TOKEN`, path: ["admin", "token"], kind: "string", arg: "<secret>", help: "turns on the admin API (/api/v1) and dashboard (/dashboard) on the HTTP port, behind this bearer token (at least 16 characters; prefer the environment variable, a flag shows in the process list)" },
];

/** The environment variable naming the config file (the flag is `--config`). */
export const CONFIG_ENV = `${ENV_PREFIX}CONFIG`;
