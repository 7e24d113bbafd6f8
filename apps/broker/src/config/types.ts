/**
 * The settings the broker runs with, after defaults, file, environment and flags are merged and
 * every cross-field rule is checked. Disabled listeners are `undefined`.
 * @module
 */
import type { LogLevel } from "@handoff/app-kit";
import type { OVERFLOW_POLICIES, STORAGE_KINDS } from "./schema.js";

/** A pino log level (or `silent`). */
export type { LogLevel } from "@handoff/app-kit";
/** Storage backend. */
export type StorageKind = (typeof STORAGE_KINDS)[number];
/** What a full per-client queue does with one more message. */
export type OverflowPolicy = (typeof OVERFLOW_POLICIES)[number];

/** A bound address: `port` 0 asks the OS for a free port. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** Certificate files of a TLS listener (paths, read by the listener at start). */
export interface TlsFiles {
  /** PEM certificate chain. */
  readonly cert: string;
  /** PEM private key. */
  readonly key: string;
  /** PEM CA bundle that verifies client certificates. */
  readonly ca: string | undefined;
  /** Ask clients for a certificate (a client without one may still connect). */
  readonly requestClientCert: boolean;
  /** Refuse clients without a certificate the CA vouches for (implies requesting one). */
  readonly requireClientCert: boolean;
}

/** A WebSocket listener: HTTP upgrade requests to `path` carry MQTT. */
export interface WsEndpoint extends Endpoint {
  readonly path: string;
}

/** The MQTT listeners; `undefined` means not started. */
export interface ListenersConfig {
  readonly tcp: Endpoint | undefined;
  readonly tls: (Endpoint & TlsFiles) | undefined;
  readonly ws: WsEndpoint | undefined;
  readonly wss: (WsEndpoint & TlsFiles) | undefined;
}

/** Resource limits; the protocol layer announces the MQTT 5 ones in CONNACK. */
export interface LimitsConfig {
  /** Open connections at once; more are refused (0x97 quota exceeded / 3.1.1 code 3). */
  readonly maxConnections: number;
  /** Largest packet accepted, bytes (Maximum Packet Size). */
  readonly maxPacketSize: number;
  /** Inbound QoS 1/2 messages a client may have unacknowledged (Receive Maximum). */
  readonly maxInflight: number;
  /** Messages queued per offline or slow client. */
  readonly maxQueuedMessages: number;
  /** Payload bytes queued per client. */
  readonly maxQueuedBytes: number;
  /** Bytes of changes the store may hold uncommitted (a slow or failing disk); past it QoS 1/2 publishes get 0x97. */
  readonly maxPendingStoreBytes: number;
  /** Highest inbound Topic Alias (Topic Alias Maximum; 0 disables). */
  readonly maxTopicAlias: number;
  /** Bounds on a client's keep alive, seconds; outside them the server imposes the bound (Server Keep Alive). */
  readonly keepAlive: { readonly min: number; readonly max: number };
  /** Longest client identifier accepted. */
  readonly maxClientIdLength: number;
  /** Cap on the Session Expiry Interval a client may ask for, seconds. */
  readonly maxSessionExpiry: number;
  /** Most levels in a topic name or filter (PUBLISH: DISCONNECT 0x90, SUBSCRIBE: 0x8F, Will: CONNACK 0x90). */
  readonly maxTopicLevels: number;
  /** Most topic filters in one SUBSCRIBE (more: DISCONNECT 0x97); copies of a filter count once toward the work. */
  readonly maxFiltersPerSubscribe: number;
  /** Unsent bytes a client may hold before it is dropped as not reading. */
  readonly maxClientBuffer: number;
  /** Seconds a congested subscriber may hold its publishers back before it is disconnected. */
  readonly stallSeconds: number;
  /** Seconds a connection has to complete CONNECT (enhanced authentication included); then it is closed. */
  readonly connectTimeout: number;
  /** Bytes of packets a client may send after CONNECT before its CONNACK; more: CONNACK 0x97 (3.1.1: 3), close. */
  readonly maxBytesBeforeConnack: number;
  /** Sessions held at once, connected or not; a CONNECT that would create one more gets CONNACK 0x97 (3.1.1: 3). */
  readonly maxSessions: number;
  /** Subscriptions one session holds; a new filter past it gets SUBACK 0x97 (3.1.1: 0x80). */
  readonly maxSubscriptionsPerSession: number;
  /** Topics holding a retained message; a retained message for a new topic past it is delivered, not stored. */
  readonly maxRetainedMessages: number;
  /** Bytes the retained messages hold (topic, payload, properties); a retained message past it is delivered, not stored. */
  readonly maxRetainedBytes: number;
}

/** Authentication and authorization files. */
export interface AuthConfig {
  /** Whether a client without a user name may connect (default: only without a password file). */
  readonly allowAnonymous: boolean;
  /** `user:hash` lines; unset means user names are not checked. */
  readonly passwordFile: string | undefined;
  /** Topic access rules; unset means every client may use every topic. */
  readonly aclFile: string | undefined;
  /** Password checks (scrypt) running at once; the rest wait their turn. */
  readonly maxConcurrentChecks: number;
}

/** Per-client queue policy. */
export interface QueueConfig {
  /** Full queue: evict the oldest message, or refuse the new one. Drops are counted either way. */
  readonly overflow: OverflowPolicy;
  /** Whether QoS 0 messages are queued for disconnected persistent sessions. */
  readonly queueQos0Offline: boolean;
}

/** The admin API and dashboard (on the HTTP port). */
export interface AdminConfig {
  /** The bearer token they require; undefined: both are off (404). */
  readonly token: string | undefined;
}

/** `storage: redis`: where the shared state lives. */
export interface RedisConfig {
  /** Required with `storage: redis`. */
  readonly url: string | undefined;
  readonly prefix: string;
  /** Replicas each batch must reach (WAIT) before it counts as committed; 0: none. */
  readonly waitReplicas: number;
  readonly waitTimeoutMs: number;
}

/** This node in a cluster. */
export interface ClusterConfig {
  /** Undefined: the host name. */
  readonly nodeId: string | undefined;
  /** A node whose heartbeat is not renewed for this long (ms) is dead: a survivor adopts its sessions and fires their wills. */
  readonly nodeTimeoutMs: number;
  /**
   * Entries of the routes stream the slowest node may have unread (a subscriber there is
   * congested and its reader paused) before every node holds its publishers, as for a congested
   * local subscriber: the stream in Redis's memory stays bounded.
   */
  readonly maxStreamBacklog: number;
}

/** Everything the broker needs to start. */
export interface BrokerConfig {
  /** The config file the settings were read from, if any. */
  readonly configFile: string | undefined;
  readonly listeners: ListenersConfig;
  /** `/health` and `/metrics`; `undefined` when disabled. */
  readonly http: Endpoint | undefined;
  readonly dataDir: string;
  readonly storage: StorageKind;
  /**
   * When the database file is damaged or not this broker's, rename it aside with a warning and
   * start empty, instead of refusing to start.
   */
  readonly setAsideCorrupt: boolean;
  readonly redis: RedisConfig;
  readonly cluster: ClusterConfig;
  readonly logLevel: LogLevel;
  /** Human-readable logs through pino-pretty instead of JSON lines. */
  readonly logPretty: boolean;
  /**
   * No host was configured and anonymous clients are allowed, so the listeners bind to loopback
   * only (the broker logs how to open it up).
   */
  readonly loopbackOnly: boolean;
  /**
   * On shutdown, how long clients get to take their DISCONNECT and close (ms); connections still
   * open then (a client that neither reads nor closes) are destroyed.
   */
  readonly shutdownGraceMs: number;
  readonly limits: LimitsConfig;
  readonly auth: AuthConfig;
  readonly queue: QueueConfig;
  readonly admin: AdminConfig;
  /** Deprecated settings in use, each said once at startup (the broker logs them). */
  readonly warnings: readonly string[];
}
