import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { parsePeerUrl, PeerUrlError } from "../cluster/peer-url.js";

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

const port = z.number().int().min(0).max(65535);

/** The config file's schema (YAML). Every field is optional; flags and env override it. */
export const fileSchema = z
  .object({
    host: z.string().min(1),
    internalHost: z.string().min(1),
    port,
    tcpPort: port,
    metricsPort: port,
    logLevel: z.enum(LOG_LEVELS),
    logPretty: z.boolean(),
    demo: z.boolean(),
    hopId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    tcpAccess: z.enum(["trusted", "public"]),
    trackLingerMs: z.number().int().min(0),
    closeGraceMs: z.number().int().min(0),
    tls: z
      .object({
        cert: z.string().min(1),
        key: z.string().min(1),
        ca: z.string().min(1),
      })
      .partial()
      .strict(),
    auth: z
      .object({
        key: z.string().min(16, "auth.key must be at least 16 characters"),
        publicSubscribe: z.array(z.string()),
        publicPublish: z.array(z.string()),
        audience: z.union([z.string().min(1), z.array(z.string().min(1))]),
        issuer: z.union([z.string().min(1), z.array(z.string().min(1))]),
        requireExp: z.boolean(),
      })
      .partial()
      .strict(),
    admin: z.object({ token: z.string().min(16, "admin.token must be at least 16 characters") }).partial().strict(),
    limits: z
      .object({
        maxSubscriptions: z.number().int().min(1),
        maxAnnounceRequests: z.number().int().min(1),
        maxAnnounced: z.number().int().min(1),
        maxUpstream: z.number().int().min(1),
        maxOutboundGroups: z.number().int().min(1),
        trackCacheGroups: z.number().int().min(1),
        maxGroupBytes: z.number().int().min(1),
        maxControlBytes: z.number().int().min(1),
        maxSessions: z.number().int().min(1),
        maxTrackBytes: z.number().int().min(1),
        maxRelayBytes: z.number().int().min(1),
      })
      .partial()
      .strict(),
    cluster: z
      .object({
        peers: z.array(z.string()),
        redirect: z.string(),
        drainTimeoutMs: z.number().int().min(0),
        handoverTimeoutMs: z.number().int().min(0),
        dialTimeoutMs: z.number().int().min(1),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

/** What the config file may say. */
export type FileConfig = z.infer<typeof fileSchema>;

/** The relay's resolved settings. */
export interface RelayConfig {
  readonly host: string;
  /** Where the internal ports (raw-TCP cluster port, metrics/admin port) bind. */
  readonly internalHost: string;
  readonly port: number;
  readonly tcpPort: number | undefined;
  readonly metricsPort: number | undefined;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Human-readable logs (pino-pretty) instead of JSON lines. */
  readonly logPretty: boolean;
  /** Serve the demo page (`/demo`) on the WebSocket + HTTP port. */
  readonly demo: boolean;
  readonly hopId: number | undefined;
  readonly tcpAccess: "trusted" | "public";
  /** How long a track nobody reads keeps its upstream copy (ms). */
  readonly trackLingerMs: number;
  /** How long a closed session's socket, or every socket at shutdown, may take to close before it is destroyed (ms). */
  readonly closeGraceMs: number;
  /** TLS files: certificate and key to serve with (both or neither), CA to trust for TLS peers. */
  readonly tls: { readonly cert: string | undefined; readonly key: string | undefined; readonly ca: string | undefined };
  readonly auth: {
    readonly key: string | undefined;
    readonly publicSubscribe: readonly string[];
    readonly publicPublish: readonly string[];
    /** Accepted `aud` values (none: not checked). */
    readonly audience: readonly string[];
    /** Accepted `iss` values (none: not checked). */
    readonly issuer: readonly string[];
    /** Refuse tokens without `exp`. */
    readonly requireExp: boolean;
  };
  /** Bearer token of `POST /goaway` (none: the endpoint refuses every call). */
  readonly adminToken: string | undefined;
  readonly limits: Limits;
  readonly cluster: ClusterConfig;
}

/** Cluster settings: peers to link to, and how draining and handovers are timed. */
export interface ClusterConfig {
  /** Peer URLs (`tcp://host:port?cost=N`, `ws(s)://host:port/path?cost=N`). */
  readonly peers: readonly string[];
  /** GOAWAY URI sent to every session when the relay drains on SIGTERM ("" = reconnect to the same endpoint). */
  readonly redirect: string;
  /** How long a drain keeps serving before it closes what is left (ms; 0 = close at once). */
  readonly drainTimeoutMs: number;
  /** After a peer's GOAWAY, how long its old session may live while tracks move (ms). */
  readonly handoverTimeoutMs: number;
  /** A dial to a peer that has not connected by then is abandoned and retried (ms). */
  readonly dialTimeoutMs: number;
}

type LimitName = keyof NonNullable<FileConfig["limits"]>;
/** Session limits given in the file (absent ones take the relay's defaults). */
export type Limits = Readonly<Partial<Record<LimitName, number>>>;

function definedLimits(limits: FileConfig["limits"]): Limits {
  const out: Partial<Record<LimitName, number>> = {};
  for (const [name, value] of Object.entries(limits ?? {}) as [LimitName, number | undefined][]) {
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Defaults used when neither a flag, a variable nor the file says otherwise. */
export const defaults: RelayConfig = {
  host: "0.0.0.0",
  internalHost: "127.0.0.1",
  port: 4443,
  tcpPort: undefined,
  metricsPort: undefined,
  logLevel: "info",
  logPretty: false,
  demo: false,
  hopId: undefined,
  tcpAccess: "public",
  trackLingerMs: 5000,
  closeGraceMs: 2000,
  tls: { cert: undefined, key: undefined, ca: undefined },
  auth: { key: undefined, publicSubscribe: [], publicPublish: [], audience: [], issuer: [], requireExp: true },
  adminToken: undefined,
  limits: {},
  cluster: { peers: [], redirect: "", drainTimeoutMs: 10_000, handoverTimeoutMs: 5000, dialTimeoutMs: 5000 },
};

/** Thrown for a flag, variable or file the relay cannot use; main prints it and exits 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** The `--help` text. */
export const usage = `Usage: handoff-relay [options]

A moq-lite relay: WebSocket (qmux-00 / webtransport framing) and HTTP on --port, qmux over raw
TCP on --tcp-port, Prometheus /metrics on --metrics-port.

  --config <file>        YAML config file (env HANDOFF_RELAY_CONFIG)
  --host <addr>          interface of the WebSocket + HTTP port (default ${defaults.host}, env HANDOFF_RELAY_HOST)
  --internal-host <addr> interface of the raw-TCP and metrics ports (default ${defaults.internalHost}, env HANDOFF_RELAY_INTERNAL_HOST)
  --port <n>             WebSocket + HTTP port, 0 = any free one (default ${String(defaults.port)}, env HANDOFF_RELAY_PORT)
  --tcp-port <n>         qmux over raw TCP for relay links (off by default, env HANDOFF_RELAY_TCP_PORT)
  --metrics-port <n>     Prometheus /metrics (off by default, env HANDOFF_RELAY_METRICS_PORT)
  --log-level <level>    ${LOG_LEVELS.join("|")} (default ${defaults.logLevel}, env HANDOFF_LOG_LEVEL)
  --log-pretty           human-readable logs instead of JSON lines (env HANDOFF_RELAY_LOG_PRETTY=1)
  --tls-cert <file>      serve HTTPS/WSS on --port and qmux over TLS on --tcp-port (env HANDOFF_RELAY_TLS_CERT)
  --tls-key <file>       the certificate's key (env HANDOFF_RELAY_TLS_KEY)
  --peer <url>           link to a peer relay, repeatable: tcp:// or tls://host:port?cost=N, ws(s)://host:port/path
                         (env HANDOFF_RELAY_PEERS, comma-separated)
  --redirect <uri>       GOAWAY URI sent when draining on SIGTERM; empty = reconnect here (env HANDOFF_RELAY_REDIRECT)
  --drain-timeout <ms>   how long a drain keeps serving (default ${String(defaults.cluster.drainTimeoutMs)}, 0 = close at once)
  --demo                 serve the demo page at /demo: a test pattern published and watched back (env HANDOFF_RELAY_DEMO=1)
  --help                 print this and exit

SIGTERM drains (GOAWAY to every session, serve until they leave or the drain timeout passes) and
stops; SIGINT stops at once. POST /goaway?uri=<uri>&timeout=<ms> on the metrics port drains the
current sessions without stopping.

The JWT key (HS256) comes from the file (auth.key) or env HANDOFF_RELAY_AUTH_KEY; without one,
every connection may publish and subscribe everywhere. POST /goaway needs the bearer token admin.token
(env HANDOFF_RELAY_ADMIN_TOKEN) and a target among the peers or the redirect.`;

/** The result of reading argv: settings to run with, or help text to print. */
export type ParsedArgs = { readonly kind: "run"; readonly config: RelayConfig } | { readonly kind: "help"; readonly text: string };

function portOf(value: string, source: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new ConfigError(`${source}: not a port number: ${value}`);
  return Number(value);
}

function flagOf(value: string | undefined, source: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "1" || value === "true") return true;
  if (value === "0" || value === "false") return false;
  throw new ConfigError(`${source}: expected 1, 0, true or false: ${value}`);
}

function levelOf(value: string, source: string): RelayConfig["logLevel"] {
  const found = LOG_LEVELS.find((l) => l === value);
  if (found === undefined) throw new ConfigError(`${source}: unknown log level: ${value}`);
  return found;
}

/** Parses and validates a config file's text; errors name the file and the field. */
export function parseConfigFile(text: string, name: string): FileConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${name}: not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const result = fileSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new ConfigError(`${name}: ${issues}`);
  }
  return result.data;
}

/**
 * Reads flags (which win), then environment variables, then the config file, over the defaults.
 * `readFile` loads the config file (injected so tests need no files).
 */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv, readFile: (path: string) => string = () => ""): ParsedArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        host: { type: "string" },
        "internal-host": { type: "string" },
        port: { type: "string" },
        "tcp-port": { type: "string" },
        "metrics-port": { type: "string" },
        "log-level": { type: "string" },
        "log-pretty": { type: "boolean" },
        demo: { type: "boolean" },
        peer: { type: "string", multiple: true },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        redirect: { type: "string" },
        "drain-timeout": { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError(`${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
  }
  if (values.help === true) return { kind: "help", text: usage };

  const portFlags: [string | undefined, string, string][] = [
    [values.port, "--port", "HANDOFF_RELAY_PORT"],
    [values["tcp-port"], "--tcp-port", "HANDOFF_RELAY_TCP_PORT"],
    [values["metrics-port"], "--metrics-port", "HANDOFF_RELAY_METRICS_PORT"],
  ];
  const [httpPort, tcpPort, metricsPort] = portFlags.map(([flag, name, variable]) => {
    if (flag !== undefined) return portOf(flag, name);
    const fromEnv = env[variable];
    return fromEnv !== undefined ? portOf(fromEnv, variable) : undefined;
  });
  const levelFlag = values["log-level"];
  const levelEnv = env["HANDOFF_LOG_LEVEL"];
  const level = levelFlag !== undefined ? levelOf(levelFlag, "--log-level") : levelEnv !== undefined ? levelOf(levelEnv, "HANDOFF_LOG_LEVEL") : undefined;

  const configPath = values.config ?? env["HANDOFF_RELAY_CONFIG"];
  let file: FileConfig = {};
  if (configPath !== undefined) {
    let text: string;
    try {
      text = readFile(configPath);
    } catch (err) {
      throw new ConfigError(`${configPath}: cannot read: ${err instanceof Error ? err.message : String(err)}`);
    }
    file = parseConfigFile(text, configPath);
  }
  const peersEnv = env["HANDOFF_RELAY_PEERS"];
  const peers = values.peer ?? (peersEnv === undefined ? undefined : peersEnv.split(",").map((p) => p.trim()).filter((p) => p !== "")) ?? file.cluster?.peers ?? defaults.cluster.peers;
  for (const peer of peers) {
    try {
      parsePeerUrl(peer);
    } catch (err) {
      if (err instanceof PeerUrlError) throw new ConfigError(`peer: ${err.message}`);
      throw err;
    }
  }
  const drainFlag = values["drain-timeout"];
  if (drainFlag !== undefined && !/^\d+$/.test(drainFlag)) throw new ConfigError(`--drain-timeout: not milliseconds: ${drainFlag}`);
  const tlsCert = values["tls-cert"] ?? env["HANDOFF_RELAY_TLS_CERT"] ?? file.tls?.cert;
  const tlsKey = values["tls-key"] ?? env["HANDOFF_RELAY_TLS_KEY"] ?? file.tls?.key;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new ConfigError("TLS needs both a certificate (--tls-cert) and a key (--tls-key)");
  const keyEnv = env["HANDOFF_RELAY_AUTH_KEY"];
  if (keyEnv !== undefined && keyEnv.length < 16) throw new ConfigError("HANDOFF_RELAY_AUTH_KEY must be at least 16 characters");
  const adminEnv = env["HANDOFF_RELAY_ADMIN_TOKEN"];
  if (adminEnv !== undefined && adminEnv.length < 16) throw new ConfigError("HANDOFF_RELAY_ADMIN_TOKEN must be at least 16 characters");
  const list = (value: string | string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === "string" ? [value] : value);
  return {
    kind: "run",
    config: {
      host: values.host ?? env["HANDOFF_RELAY_HOST"] ?? file.host ?? defaults.host,
      internalHost: values["internal-host"] ?? env["HANDOFF_RELAY_INTERNAL_HOST"] ?? file.internalHost ?? defaults.internalHost,
      port: httpPort ?? file.port ?? defaults.port,
      tcpPort: tcpPort ?? file.tcpPort ?? defaults.tcpPort,
      metricsPort: metricsPort ?? file.metricsPort ?? defaults.metricsPort,
      logLevel: level ?? file.logLevel ?? defaults.logLevel,
      logPretty: values["log-pretty"] ?? flagOf(env["HANDOFF_RELAY_LOG_PRETTY"], "HANDOFF_RELAY_LOG_PRETTY") ?? file.logPretty ?? defaults.logPretty,
      demo: values.demo ?? flagOf(env["HANDOFF_RELAY_DEMO"], "HANDOFF_RELAY_DEMO") ?? file.demo ?? defaults.demo,
      hopId: file.hopId ?? defaults.hopId,
      tcpAccess: file.tcpAccess ?? defaults.tcpAccess,
      trackLingerMs: file.trackLingerMs ?? defaults.trackLingerMs,
      closeGraceMs: file.closeGraceMs ?? defaults.closeGraceMs,
      tls: { cert: tlsCert, key: tlsKey, ca: file.tls?.ca },
      auth: {
        key: keyEnv ?? file.auth?.key ?? defaults.auth.key,
        publicSubscribe: file.auth?.publicSubscribe ?? defaults.auth.publicSubscribe,
        publicPublish: file.auth?.publicPublish ?? defaults.auth.publicPublish,
        audience: list(file.auth?.audience),
        issuer: list(file.auth?.issuer),
        requireExp: file.auth?.requireExp ?? defaults.auth.requireExp,
      },
      adminToken: adminEnv ?? file.admin?.token ?? defaults.adminToken,
      limits: definedLimits(file.limits),
      cluster: {
        peers,
        redirect: values.redirect ?? env["HANDOFF_RELAY_REDIRECT"] ?? file.cluster?.redirect ?? defaults.cluster.redirect,
        drainTimeoutMs: drainFlag !== undefined ? Number(drainFlag) : (file.cluster?.drainTimeoutMs ?? defaults.cluster.drainTimeoutMs),
        handoverTimeoutMs: file.cluster?.handoverTimeoutMs ?? defaults.cluster.handoverTimeoutMs,
        dialTimeoutMs: file.cluster?.dialTimeoutMs ?? defaults.cluster.dialTimeoutMs,
      },
    },
  };
}
