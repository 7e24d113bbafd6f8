/**
 * The shape of the broker's settings as written in a config file, validated with zod. Every key
 * is optional and has a default; unknown keys are refused (strict objects) so a typo cannot be
 * silently ignored. {@link resolveConfig} turns the parsed value into the {@link BrokerConfig}
 * the app runs with.
 * @module
 */
import { LOG_LEVELS } from "@handoff/app-kit";
import { z } from "zod";

/** Storage backends. */
export const STORAGE_KINDS = ["memory", "sqlite", "redis"] as const;
/** What a full per-client queue does with one more message. */
export const OVERFLOW_POLICIES = ["drop-oldest", "drop-new"] as const;

/** The defaults, in one place so the usage text and the docs quote the same numbers. */
export const DEFAULTS = {
  /** With a password file (anonymous access off): every interface. */
  host: "0.0.0.0",
  /** With anonymous access and no host configured: loopback only, as Mosquitto 2 does. */
  anonymousHost: "127.0.0.1",
  /** `/health` and `/metrics` are for operators: loopback unless `http.host` says otherwise. */
  httpHost: "127.0.0.1",
  maxConcurrentPasswordChecks: 4,
  tcpPort: 1883,
  tlsPort: 8883,
  wsPort: 8080,
  wssPort: 8443,
  wsPath: "/mqtt",
  /** 9090 is Prometheus's own port, so the broker's health/metrics endpoint sits elsewhere. */
  httpPort: 9883,
  dataDir: "./data",
  storage: "sqlite",
  redisPrefix: "handoff:",
  redisWaitTimeoutMs: 1000,
  /** A node whose heartbeat is not renewed for this long is dead; a survivor adopts its sessions. */
  nodeTimeoutMs: 5000,
  /** Routes-stream entries the slowest node may have unread before every node slows its publishers. */
  maxStreamBacklog: 100_000,
  logLevel: "info",
  maxConnections: 10_000,
  maxPacketSize: 1_048_576,
  maxInflight: 64,
  maxQueuedMessages: 1_000,
  maxQueuedBytes: 16_777_216,
  maxPendingStoreBytes: 67_108_864,
  maxTopicAlias: 16,
  keepAliveMin: 0,
  keepAliveMax: 65_535,
  maxClientIdLength: 256,
  maxSessionExpiry: 604_800,
  maxTopicLevels: 128,
  maxFiltersPerSubscribe: 256,
  maxClientBuffer: 16_777_216,
  stallSeconds: 5,
  connectTimeout: 10,
  maxBytesBeforeConnack: 1_048_576,
  maxSessions: 100_000,
  maxSubscriptionsPerSession: 10_000,
  maxRetainedMessages: 100_000,
  maxRetainedBytes: 268_435_456,
  overflow: "drop-oldest",
  shutdownGraceMs: 2000,
} as const;

const port = z.number().int().min(0).max(65_535);
const host = z.string().min(1);
const file = z.string().min(1);
const wsPath = z.string().startsWith("/");
const int = (min: number, max: number): z.ZodNumber => z.number().int().min(min).max(max);

const tcpListener = z.strictObject({
  enabled: z.boolean().default(true),
  host: host.optional(),
  port: port.default(DEFAULTS.tcpPort),
});

const tlsListener = z.strictObject({
  enabled: z.boolean().optional(),
  host: host.optional(),
  port: port.default(DEFAULTS.tlsPort),
  cert: file.optional(),
  key: file.optional(),
  ca: file.optional(),
  requestClientCert: z.boolean().default(false),
  requireClientCert: z.boolean().default(false),
});

const wsListener = z.strictObject({
  enabled: z.boolean().default(true),
  host: host.optional(),
  port: port.default(DEFAULTS.wsPort),
  path: wsPath.default(DEFAULTS.wsPath),
});

const wssListener = z.strictObject({
  enabled: z.boolean().optional(),
  host: host.optional(),
  port: port.default(DEFAULTS.wssPort),
  path: wsPath.default(DEFAULTS.wsPath),
  cert: file.optional(),
  key: file.optional(),
  ca: file.optional(),
  requestClientCert: z.boolean().default(false),
  requireClientCert: z.boolean().default(false),
});

/** Where the state lives; `url` and the rest are for `kind: redis`. */
const storageSection = z.strictObject({
  kind: z.enum(STORAGE_KINDS).default(DEFAULTS.storage),
  url: z.string().min(1).optional(),
  prefix: z.string().optional(),
  waitReplicas: int(0, 1000).optional(),
  waitTimeoutMs: int(1, 600_000).optional(),
});

/** Deprecated: the `redis:` section of `storage: redis`, now `storage: { kind: redis, ... }`. */
const legacyRedisSection = storageSection.omit({ kind: true });

/** The config file schema (also applied to the merged settings after env and flags). */
export const configSchema = z.strictObject({
  host: host.optional(),
  listeners: z
    .strictObject({
      tcp: tcpListener.prefault({}),
      tls: tlsListener.prefault({}),
      ws: wsListener.prefault({}),
      wss: wssListener.prefault({}),
    })
    .prefault({}),
  http: z
    .strictObject({
      enabled: z.boolean().default(true),
      host: host.optional(),
      port: port.default(DEFAULTS.httpPort),
    })
    .prefault({}),
  dataDir: z.string().min(1).default(DEFAULTS.dataDir),
  // `storage: { kind, url, prefix, ... }`; the former `storage: <kind>` plus a `redis:` section
  // still works, with one deprecation warning (resolve.ts).
  storage: z.union([z.enum(STORAGE_KINDS), storageSection]).prefault({}),
  setAsideCorrupt: z.boolean().default(false),
  redis: legacyRedisSection.optional(),
  cluster: z
    .strictObject({
      nodeId: z.string().min(1).max(200).optional(),
      nodeTimeoutMs: int(100, 600_000).default(DEFAULTS.nodeTimeoutMs),
      maxStreamBacklog: int(100, 1_000_000_000).default(DEFAULTS.maxStreamBacklog),
    })
    .prefault({}),
  logLevel: z.enum(LOG_LEVELS).default(DEFAULTS.logLevel),
  logPretty: z.boolean().default(false),
  shutdownGraceMs: int(0, 3_600_000).default(DEFAULTS.shutdownGraceMs),
  limits: z
    .strictObject({
      maxConnections: int(1, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxConnections),
      // 268,435,455 is the largest Remaining Length plus a 5-byte fixed header [MQTT-2.2.3].
      maxPacketSize: int(64, 268_435_460).default(DEFAULTS.maxPacketSize),
      maxInflight: int(1, 65_535).default(DEFAULTS.maxInflight),
      maxQueuedMessages: int(1, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxQueuedMessages),
      maxQueuedBytes: int(1, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxQueuedBytes),
      maxPendingStoreBytes: int(1, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxPendingStoreBytes),
      maxTopicAlias: int(0, 65_535).default(DEFAULTS.maxTopicAlias),
      keepAlive: z
        .strictObject({
          min: int(0, 65_535).default(DEFAULTS.keepAliveMin),
          max: int(1, 65_535).default(DEFAULTS.keepAliveMax),
        })
        .prefault({}),
      // A server must accept ids of 1 to 23 characters [MQTT-3.1.3-5], so the cap cannot go lower.
      maxClientIdLength: int(23, 65_535).default(DEFAULTS.maxClientIdLength),
      maxSessionExpiry: int(0, 0xffff_ffff).default(DEFAULTS.maxSessionExpiry),
      maxTopicLevels: int(1, 65_535).default(DEFAULTS.maxTopicLevels),
      maxFiltersPerSubscribe: int(1, 65_535).default(DEFAULTS.maxFiltersPerSubscribe),
      maxClientBuffer: int(65_536, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxClientBuffer),
      stallSeconds: z.number().positive().max(3600).default(DEFAULTS.stallSeconds),
      connectTimeout: int(1, 3600).default(DEFAULTS.connectTimeout),
      maxBytesBeforeConnack: int(0, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxBytesBeforeConnack),
      maxSessions: int(1, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxSessions),
      maxSubscriptionsPerSession: int(1, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxSubscriptionsPerSession),
      maxRetainedMessages: int(0, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxRetainedMessages),
      maxRetainedBytes: int(0, Number.MAX_SAFE_INTEGER).default(DEFAULTS.maxRetainedBytes),
    })
    .prefault({}),
  auth: z
    .strictObject({
      // Unset: on without a password file, off with one.
      allowAnonymous: z.boolean().optional(),
      maxConcurrentChecks: int(1, 1024).default(DEFAULTS.maxConcurrentPasswordChecks),
      passwordFile: file.optional(),
      aclFile: file.optional(),
    })
    .prefault({}),
  queue: z
    .strictObject({
      overflow: z.enum(OVERFLOW_POLICIES).default(DEFAULTS.overflow),
      queueQos0Offline: z.boolean().default(false),
    })
    .prefault({}),
  // The admin API and dashboard on the HTTP port; off without a token.
  admin: z
    .strictObject({
      // Refinements, so a refusal names the rule but never echoes the secret.
      token: z
        .string()
        .refine((token) => token.length >= 16 && token.length <= 4096, "must be 16 to 4096 characters long")
        .refine((token) => /^\S*$/.test(token), "must not contain spaces")
        .optional(),
    })
    .prefault({}),
});

/** Settings as the schema outputs them: every default filled in, listeners not yet resolved. */
export type ConfigInput = z.output<typeof configSchema>;
