/**
 * The relay's settings: defaults < YAML config file < `HANDOFF_RELAY_*` environment variables <
 * flags, loaded by app-kit's layered loader, so errors read like the broker's (where the value
 * came from, the key path, what was expected, "did you mean").
 * @module
 */
import { ConfigError, formatIssues, loadSettings, parseYamlConfig, readYamlConfig, type Env, type LogLevel, type SourceOf } from "@handoff/app-kit";
import { parsePeerUrl, PeerUrlError } from "../cluster/peer-url.js";
import { CONFIG_ENV, ENV_PREFIX, OVERRIDES, usage } from "./options.js";
import { fileSchema, type FileConfig } from "./schema.js";

export { ConfigError } from "@handoff/app-kit";

/** The relay's resolved settings. */
export interface RelayConfig {
  readonly host: string;
  /** Where the internal ports (raw-TCP cluster port, metrics/admin port) bind. */
  readonly internalHost: string;
  readonly port: number;
  readonly tcpPort: number | undefined;
  readonly metricsPort: number | undefined;
  readonly logLevel: LogLevel;
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
  /** Origins whose pages may read `/announced` and `/fetch` (CORS; `*` for any); none by default. */
  readonly corsOrigins: readonly string[];
  /** Bearer token of `POST /goaway`, and of `/metrics` on the main port (none: both refuse every call). */
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
  corsOrigins: [],
  tls: { cert: undefined, key: undefined, ca: undefined },
  auth: { key: undefined, publicSubscribe: [], publicPublish: [], audience: [], issuer: [], requireExp: true },
  adminToken: undefined,
  limits: {},
  cluster: { peers: [], redirect: "", drainTimeoutMs: 10_000, handoverTimeoutMs: 5000, dialTimeoutMs: 5000 },
};

/** The result of reading argv: settings to run with, or help text to print. */
export type ParsedArgs = { readonly kind: "run"; readonly config: RelayConfig } | { readonly kind: "help"; readonly text: string };

/** Parses and validates a config file's text; errors name the file, the key path and what was expected. */
export function parseConfigFile(text: string, name: string): FileConfig {
  return parseYamlConfig(text, name, fileSchema);
}

/** The checks that span keys or need more than the schema: peer URLs, and TLS files in pairs. */
function check(settings: FileConfig, sourceOf: SourceOf): void {
  for (const peer of settings.cluster?.peers ?? []) {
    try {
      parsePeerUrl(peer);
    } catch (err) {
      if (err instanceof PeerUrlError) throw new ConfigError(`${sourceOf(["cluster", "peers"])}: peer: ${err.message}`);
      throw err;
    }
  }
  if ((settings.tls?.cert === undefined) !== (settings.tls?.key === undefined)) {
    throw new ConfigError(`${sourceOf(["tls"])}: TLS needs both a certificate (--tls-cert, "tls.cert") and a key (--tls-key, "tls.key")`);
  }
}

/**
 * Reads flags (which win), then environment variables, then the config file, over the defaults.
 * `readFile` loads the config file (injected so tests need no files); `warn` is told once about
 * each deprecated variable in use (`HANDOFF_LOG_LEVEL`, `HANDOFF_RELAY_PEERS`).
 */
export function parseConfig(argv: readonly string[], env: Env, readFile: (path: string) => string = () => "", warn?: (message: string) => void): ParsedArgs {
  const loaded = loadSettings(argv, env, {
    overrides: OVERRIDES,
    envPrefix: ENV_PREFIX,
    configEnv: CONFIG_ENV,
    schema: fileSchema,
    readConfigFile: (file) => readYamlConfig(file, readFile, fileSchema),
    usage,
    ...(warn === undefined ? {} : { warn }),
  });
  if (loaded.kind === "help") return loaded;
  return { kind: "run", config: resolve(loaded.settings, loaded.sourceOf) };
}

/**
 * Settings given as an object (an embedding service's `createRelay(config)`): the config file's
 * schema and checks, with the same messages, each prefixed by `label`.
 */
export function configFromObject(input: unknown, label = "createRelay config"): RelayConfig {
  const sourceOf = (): string => label;
  const parsed = fileSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, input, fileSchema, sourceOf));
  return resolve(parsed.data, sourceOf);
}

/** The checked settings over the defaults. */
function resolve(file: FileConfig, sourceOf: SourceOf): RelayConfig {
  check(file, sourceOf);
  const list = (value: string | string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === "string" ? [value] : value);
  return {
    host: file.host ?? defaults.host,
    internalHost: file.internalHost ?? defaults.internalHost,
    port: file.port ?? defaults.port,
    tcpPort: file.tcpPort ?? defaults.tcpPort,
    metricsPort: file.metricsPort ?? defaults.metricsPort,
    logLevel: file.logLevel ?? defaults.logLevel,
    logPretty: file.logPretty ?? defaults.logPretty,
    demo: file.demo ?? defaults.demo,
    hopId: file.hopId ?? defaults.hopId,
    tcpAccess: file.tcpAccess ?? defaults.tcpAccess,
    trackLingerMs: file.trackLingerMs ?? defaults.trackLingerMs,
    closeGraceMs: file.closeGraceMs ?? defaults.closeGraceMs,
    corsOrigins: file.corsOrigins ?? defaults.corsOrigins,
    tls: { cert: file.tls?.cert, key: file.tls?.key, ca: file.tls?.ca },
    auth: {
      key: file.auth?.key ?? defaults.auth.key,
      publicSubscribe: file.auth?.publicSubscribe ?? defaults.auth.publicSubscribe,
      publicPublish: file.auth?.publicPublish ?? defaults.auth.publicPublish,
      audience: list(file.auth?.audience),
      issuer: list(file.auth?.issuer),
      requireExp: file.auth?.requireExp ?? defaults.auth.requireExp,
    },
    adminToken: file.admin?.token ?? defaults.adminToken,
    limits: definedLimits(file.limits),
    cluster: {
      peers: file.cluster?.peers ?? defaults.cluster.peers,
      redirect: file.cluster?.redirect ?? defaults.cluster.redirect,
      drainTimeoutMs: file.cluster?.drainTimeoutMs ?? defaults.cluster.drainTimeoutMs,
      handoverTimeoutMs: file.cluster?.handoverTimeoutMs ?? defaults.cluster.handoverTimeoutMs,
      dialTimeoutMs: file.cluster?.dialTimeoutMs ?? defaults.cluster.dialTimeoutMs,
    },
  };
}
