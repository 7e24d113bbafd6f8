/**
 * From the schema's output to the {@link BrokerConfig}: decides which listeners run, fills in
 * hosts, and checks the rules that span several keys (a certificate needs its key, ports must not
 * collide, anonymous access off needs a password file).
 * @module
 */
import { DEFAULTS, type ConfigInput } from "./schema.js";
import type { BrokerConfig, Endpoint, TlsFiles } from "./types.js";

/** The result of {@link resolveConfig}: the config, or the problems with the paths they concern. */
export type Resolution =
  | { readonly ok: true; readonly config: BrokerConfig }
  | { readonly ok: false; readonly problems: readonly Problem[] };

interface TlsInput {
  readonly enabled?: boolean | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly ca?: string | undefined;
  readonly requestClientCert: boolean;
  readonly requireClientCert: boolean;
}

interface Problem {
  readonly path: readonly string[];
  readonly message: string;
}

/** The TLS files of a listener, or undefined when it is off; records problems for half-set ones. */
function tlsFiles(name: "tls" | "wss", input: TlsInput, problems: Problem[]): TlsFiles | undefined {
  const path = ["listeners", name];
  const dotted = `"listeners.${name}"`;
  if (input.enabled === false) return undefined;
  if (input.cert !== undefined && input.key === undefined) {
    problems.push({ path, message: `${dotted}: "cert" is set but "key" is not; a TLS listener needs both` });
    return undefined;
  }
  if (input.key !== undefined && input.cert === undefined) {
    problems.push({ path, message: `${dotted}: "key" is set but "cert" is not; a TLS listener needs both` });
    return undefined;
  }
  if (input.cert === undefined || input.key === undefined) {
    if (input.enabled === true) problems.push({ path, message: `${dotted} is enabled but has no "cert" and "key"` });
    return undefined;
  }
  // Without a CA of its own, node would accept any publicly trusted certificate as a client identity.
  if (input.requireClientCert && input.ca === undefined) {
    problems.push({ path, message: `${dotted}: "requireClientCert" needs "ca", the bundle that vouches for client certificates` });
  }
  return {
    cert: input.cert,
    key: input.key,
    ca: input.ca,
    requestClientCert: input.requestClientCert || input.requireClientCert,
    requireClientCert: input.requireClientCert,
  };
}

/** Said once when a config uses the former spelling of the storage settings. */
export const LEGACY_STORAGE_WARNING =
  'deprecated config: "storage: <kind>" and the "redis:" section are now one section, "storage: { kind, url, prefix, waitReplicas, waitTimeoutMs }"; the former spelling still works and will go away';

/** Checks cross-key rules and builds the runtime config. */
export function resolveConfig(input: ConfigInput, configFile: string | undefined): Resolution {
  const problems: Problem[] = [];
  const { listeners } = input;
  // A password file turns anonymous access off unless it is asked for [issue: a client sending no
  // user name must not skip the password]; an open broker nobody configured stays on loopback.
  const allowAnonymous = input.auth.allowAnonymous ?? input.auth.passwordFile === undefined;
  const loopbackOnly = input.host === undefined && allowAnonymous;
  const defaultHost = input.host ?? (allowAnonymous ? DEFAULTS.anonymousHost : DEFAULTS.host);
  const at = (own: string | undefined, port: number): Endpoint => ({ host: own ?? defaultHost, port });

  // The former spelling (`storage: <kind>`, a `redis:` section) still counts, below the new one.
  const storage = typeof input.storage === "string" ? { kind: input.storage } : input.storage;
  const legacy = input.redis;
  const tlsFilesOfTls = tlsFiles("tls", listeners.tls, problems);
  const tlsFilesOfWss = tlsFiles("wss", listeners.wss, problems);
  const config: BrokerConfig = {
    configFile,
    listeners: {
      tcp: listeners.tcp.enabled ? at(listeners.tcp.host, listeners.tcp.port) : undefined,
      tls: tlsFilesOfTls && { ...at(listeners.tls.host, listeners.tls.port), ...tlsFilesOfTls },
      ws: listeners.ws.enabled ? { ...at(listeners.ws.host, listeners.ws.port), path: listeners.ws.path } : undefined,
      wss: tlsFilesOfWss && { ...at(listeners.wss.host, listeners.wss.port), path: listeners.wss.path, ...tlsFilesOfWss },
    },
    http: input.http.enabled ? { host: input.http.host ?? DEFAULTS.httpHost, port: input.http.port } : undefined,
    loopbackOnly,
    dataDir: input.dataDir,
    storage: storage.kind,
    setAsideCorrupt: input.setAsideCorrupt,
    redis: {
      url: storage.url ?? legacy?.url,
      prefix: storage.prefix ?? legacy?.prefix ?? DEFAULTS.redisPrefix,
      waitReplicas: storage.waitReplicas ?? legacy?.waitReplicas ?? 0,
      waitTimeoutMs: storage.waitTimeoutMs ?? legacy?.waitTimeoutMs ?? DEFAULTS.redisWaitTimeoutMs,
    },
    cluster: { nodeId: input.cluster.nodeId, nodeTimeoutMs: input.cluster.nodeTimeoutMs, maxStreamBacklog: input.cluster.maxStreamBacklog },
    logLevel: input.logLevel,
    logPretty: input.logPretty,
    shutdownGraceMs: input.shutdownGraceMs,
    limits: input.limits,
    auth: { allowAnonymous, passwordFile: input.auth.passwordFile, aclFile: input.auth.aclFile, maxConcurrentChecks: input.auth.maxConcurrentChecks },
    queue: input.queue,
    admin: { token: input.admin.token },
    warnings: typeof input.storage === "string" || legacy !== undefined ? [LEGACY_STORAGE_WARNING] : [],
  };

  const { min, max } = input.limits.keepAlive;
  if (min > max) {
    problems.push({ path: ["limits", "keepAlive"], message: `"limits.keepAlive": min (${String(min)}) is above max (${String(max)})` });
  }
  if (!allowAnonymous && input.auth.passwordFile === undefined) {
    problems.push({
      path: ["auth", "allowAnonymous"],
      message: `"auth.allowAnonymous" is false but no "auth.passwordFile" is set: no client could connect`,
    });
  }
  if (config.storage === "redis" && config.redis.url === undefined) {
    problems.push({ path: ["storage", "url"], message: `"storage.kind" is redis but no "storage.url" is set (--redis-url or HANDOFF_BROKER_REDIS_URL)` });
  }
  problems.push(...portCollisions(config));
  return problems.length === 0 ? { ok: true, config } : { ok: false, problems };
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

function overlap(a: string, b: string): boolean {
  return a === b || WILDCARD_HOSTS.has(a) || WILDCARD_HOSTS.has(b);
}

/** Two enabled servers on the same fixed port of overlapping hosts would fail at bind time; say so now. */
function portCollisions(config: BrokerConfig): Problem[] {
  const servers: [string, Endpoint | undefined][] = [
    ["listeners.tcp", config.listeners.tcp],
    ["listeners.tls", config.listeners.tls],
    ["listeners.ws", config.listeners.ws],
    ["listeners.wss", config.listeners.wss],
    ["http", config.http],
  ];
  const bound: [string, Endpoint][] = [];
  const problems: Problem[] = [];
  for (const [name, endpoint] of servers) {
    if (endpoint === undefined || endpoint.port === 0) continue;
    const clash = bound.find(([, other]) => other.port === endpoint.port && overlap(other.host, endpoint.host));
    if (clash === undefined) bound.push([name, endpoint]);
    else problems.push({ path: name.split("."), message: `"${clash[0]}" and "${name}" both use port ${String(endpoint.port)}` });
  }
  return problems;
}
