/**
 * The broker as a library: `createBroker(config)` opens the store and builds the broker core,
 * metrics and `$SYS` publishing; `listen()` binds the listeners the config enables, `handle()`
 * runs MQTT over a stream a service accepted itself. The CLI (server.ts, main.ts) is built on it.
 * @module
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Duplex } from "node:stream";
import type { TlsOptions } from "node:tls";
import { TLSSocket } from "node:tls";
import { Socket } from "node:net";
import type { Message } from "@handoff/mqtt-router";
import { topicLevels } from "@handoff/mqtt-router/codec";
import pino, { type Logger } from "pino";
import type { Registry } from "prom-client";
import { createAdminRoutes, statsJson } from "./admin/index.js";
import { Authenticator, withHooks, type AuthSummary, type BrokerHooks } from "./auth/index.js";
import { ClusterKeys } from "./cluster/keys.js";
import { startLivenessLoop, type LivenessLoop } from "./cluster/liveness-loop.js";
import { registerClusterMetrics } from "./cluster/liveness-metrics.js";
import { clusterRouterOptions, startClusterRouting, type ClusterRouting } from "./cluster/routing/cluster-routing.js";
import { settleAtStart } from "./cluster/settle-at-start.js";
import { SharedGroupsRouting } from "./cluster/routing/shared-groups.js";
import { observeRouting } from "./cluster/routing/routing-metrics.js";
import { giveUpSession } from "./cluster/session-handoff.js";
import { configFromObject, type BrokerSettings } from "./config/from-object.js";
import type { BrokerConfig, TlsFiles } from "./config/index.js";
import { createHttpServer, type HttpServer } from "./http/index.js";
import { attachStream } from "./listeners/attach-stream.js";
import { listenTcp, listenTls, type Listening } from "./listeners/tcp.js";
import { listenWs } from "./listeners/ws.js";
import { createBrokerMetrics, observeStore, registerSafetyMetrics, storageStatus, sysSnapshot, sysTopics, type TrafficTotals } from "./metrics/index.js";
import { Broker } from "./mqtt/broker.js";
import type { ConnectionInfo, DisconnectInfo } from "./mqtt/connection-info.js";
import { withinTopicLevels } from "./mqtt/snapshot-limits.js";
import type { Transport } from "./mqtt/transport.js";
import { SqliteStore, StoreOpenError } from "./storage/index.js";
import type { RedisStore } from "./storage/redis-store.js";
import { openRedisStorage } from "./storage/redis-config.js";
import { VERSION } from "./version.js";

/** What `createBroker` takes: the config file's settings (same schema), the hooks, a logger. */
export interface CreateBrokerOptions extends BrokerSettings {
  /** Authentication and authorization as functions. */
  readonly hooks?: BrokerHooks;
  /** Where the broker logs; default: pino at `logLevel` on standard output. */
  readonly logger?: Logger;
  /** Export the process's own metrics (CPU, memory, event loop) too; default false (a service has its own). */
  readonly processMetrics?: boolean;
}

/** A message the broker accepted from a client (a PUBLISH or a will), as the `publish` event reports it. */
export interface PublishedMessage {
  /** The topic it was published to. */
  readonly topic: string;
  /** The payload, as routed (do not change it: subscribers share it). */
  readonly payload: Uint8Array;
  /** The QoS it was published with. */
  readonly qos: 0 | 1 | 2;
  /** Whether it was published as the topic's retained message. */
  readonly retain: boolean;
  /** The publishing client's id (for a will, the client whose will it is). */
  readonly clientId: string;
}

/** The events of an embedded broker, by name. */
export interface BrokerEventMap {
  /** A CONNECT was accepted. */
  readonly client: ConnectionInfo;
  /** An accepted connection ended. */
  readonly clientDisconnect: DisconnectInfo;
  /**
   * The router accepted a client's message or a will, once each, right after routing it to its
   * subscribers (before the publisher's acknowledgement, which waits for the store's commit). A
   * refused one (not authorized, storage full) is not reported, nor the broker's own `$SYS` topics.
   */
  readonly publish: PublishedMessage;
}

/** Bound ports by listener (only the enabled ones), plus `http`. */
export type BrokerPorts = Readonly<Partial<Record<"mqtt" | "tls" | "ws" | "wss" | "http", number>>>;

/** How `handle` labels a stream (`listener` in logs, metrics and the admin API). */
export interface HandleOptions {
  /** Default: `tls` for a TLS socket, `tcp` for another socket, `ws` for any other stream. */
  readonly listener?: Transport["listener"];
  /** `host:port` of the peer; default the socket's, `?` for other streams. */
  readonly remote?: string;
}

/** An embedded broker. */
export interface EmbeddedBroker {
  /** Binds the listeners and the HTTP endpoint the config enables; resolves with their ports. */
  listen(): Promise<BrokerPorts>;
  /** Runs MQTT over a stream the service accepted (TCP, TLS, a WebSocket stream) until it closes. */
  handle(stream: Duplex, options?: HandleOptions): void;
  /** Adds a listener; a listener that throws is logged, never breaks the broker. */
  on<K extends keyof BrokerEventMap>(event: K, listener: (value: BrokerEventMap[K]) => void): this;
  /** Removes a listener added with `on`. */
  off<K extends keyof BrokerEventMap>(event: K, listener: (value: BrokerEventMap[K]) => void): this;
  /** Ports bound by `listen()` (empty before). */
  readonly ports: BrokerPorts;
  /** Open client connections. */
  readonly connections: number;
  /** The Prometheus registry (what `/metrics` serves) and the traffic totals. */
  readonly metrics: { readonly registry: Registry; totals(): TrafficTotals };
  /** Re-reads the password and ACL files (what SIGHUP does to the CLI). */
  reload(): Promise<AuthSummary>;
  /** Publishes the `$SYS` topics now (they also go out at start and every 10 s). */
  publishSys(): void;
  /** Graceful stop: DISCONNECT 0x8B to clients, flush the store, close listeners and streams. */
  close(): Promise<void>;
}

function tlsOptions(files: TlsFiles): TlsOptions {
  return {
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    ...(files.ca === undefined ? {} : { ca: readFileSync(files.ca) }),
    requestCert: files.requestClientCert || files.requireClientCert,
    rejectUnauthorized: files.requireClientCert,
  };
}

function defaultListener(stream: Duplex): Transport["listener"] {
  return stream instanceof TLSSocket ? "tls" : stream instanceof Socket ? "tcp" : "ws";
}

/**
 * Creates a broker from settings with the config file's keys (validated by the same schema: a
 * {@link ConfigError} names every problem). Resolves once the store is open and its state restored.
 */
export async function createBroker(options: CreateBrokerOptions = {}): Promise<EmbeddedBroker> {
  const { hooks, logger, processMetrics, ...settings } = options;
  const config = configFromObject(settings);
  const log = logger ?? pino({ name: "broker", level: config.logLevel });
  return (await openBroker(config, log, { ...(hooks === undefined ? {} : { hooks }), processMetrics: processMetrics ?? false })).embedded;
}

/** An opened broker: the service's view and the core (for the CLI's admin routes and tests). */
export interface OpenedBroker {
  readonly embedded: EmbeddedBroker;
  readonly broker: Broker;
}

/** {@link createBroker} from validated settings. */
export async function openBroker(config: BrokerConfig, log: Logger, extra: { readonly hooks?: BrokerHooks; readonly processMetrics: boolean }): Promise<OpenedBroker> {
  for (const warning of config.warnings) log.warn(warning);
  const auth = await Authenticator.load(config.auth, (path) => readFile(path, "utf8"));
  const { limits } = config;
  const listeners = new Map<keyof BrokerEventMap, Set<(value: never) => void>>();
  const emit = <K extends keyof BrokerEventMap>(event: K, value: BrokerEventMap[K]): void => {
    for (const listener of listeners.get(event) ?? []) {
      try {
        (listener as (value: BrokerEventMap[K]) => void)(value);
      } catch (err) {
        log.error({ err, event }, "broker event listener failed");
      }
    }
  };
  // Bound once the broker exists: a session another node claimed loses its connection (0x8E).
  let displace: (clientId: string) => void = () => undefined;
  // Throws StoreOpenError naming the file and the problem: a damaged or foreign file is never
  // silently replaced by an empty start.
  const redis =
    config.storage === "redis"
      ? await openRedisStorage(config, (clientId) => {
          displace(clientId);
        })
      : undefined;
  const store =
    redis !== undefined
      ? redis.store
      : config.storage === "sqlite"
        ? SqliteStore.open({
            dataDir: config.dataDir,
            setAsideCorrupt: config.setAsideCorrupt,
            maxPendingBytes: limits.maxPendingStoreBytes,
            onWarning: (message) => {
              log.warn(message);
            },
          })
        : undefined;
  const loaded = store?.load();
  const limited = loaded === undefined ? undefined : withinTopicLevels(loaded, limits.maxTopicLevels);
  for (const topic of limited?.skippedRetained ?? []) {
    log.warn({ topic: topic.length > 200 ? `${topic.slice(0, 200)}…` : topic, levels: topicLevels(topic), max: limits.maxTopicLevels }, "stored retained message skipped: topic deeper than limits.maxTopicLevels");
  }
  const restored = limited?.snapshot;
  if (restored !== undefined) log.info({ sessions: restored.sessions.length, retained: restored.retained.length, file: store?.file }, "state restored");
  // Started right after the broker, before any connection can ask for it (cluster/routing/).
  let routing: ClusterRouting | undefined;
  // Made before the router, which tells it its shared groups as it restores sessions.
  const groups = redis === undefined ? undefined : new SharedGroupsRouting(redis.store.nodeId, (change) => {
    redis.store.shareChanged(change);
  });
  const broker = new Broker({
    ...(store === undefined ? {} : { store }),
    ...(restored === undefined ? {} : { restore: restored }),
    ...(redis === undefined ? {} : { loadSession: (router, clientId) => routing?.loadSession(router, clientId) ?? Promise.reject(new Error("cluster routing is not running")) }),
    log,
    access: extra.hooks === undefined ? auth : withHooks(auth, extra.hooks, log),
    events: {
      connected: (info) => {
        emit("client", info);
      },
      disconnected: (info) => {
        emit("clientDisconnect", info);
      },
    },
    maxConnections: limits.maxConnections,
    keepAlive: limits.keepAlive,
    maxClientBuffer: limits.maxClientBuffer,
    stallMs: limits.stallSeconds * 1000,
    ...(redis === undefined ? {} : { streamBacklogged: () => routing?.backlogged() ?? false }),
    protocol: {
      receiveMaximum: limits.maxInflight,
      maximumPacketSize: limits.maxPacketSize,
      topicAliasMaximum: limits.maxTopicAlias,
      clientIdMaxLength: limits.maxClientIdLength,
      maximumSessionExpiryInterval: limits.maxSessionExpiry,
      maximumTopicLevels: limits.maxTopicLevels,
      maximumFiltersPerSubscribe: limits.maxFiltersPerSubscribe,
      connectTimeoutMs: limits.connectTimeout * 1000,
      maxPendingBytes: limits.maxBytesBeforeConnack,
    },
    router: {
      queueLimits: { maxCount: limits.maxQueuedMessages, maxBytes: limits.maxQueuedBytes },
      overflow: config.queue.overflow,
      queueQos0Offline: config.queue.queueQos0Offline,
      maxSessionExpiry: limits.maxSessionExpiry,
      maxSessions: limits.maxSessions,
      maxSubscriptionsPerSession: limits.maxSubscriptionsPerSession,
      maxRetainedMessages: limits.maxRetainedMessages,
      maxRetainedBytes: limits.maxRetainedBytes,
      ...(groups === undefined ? {} : clusterRouterOptions(groups)),
      // Every message the router accepted passes here once; the broker's own ($SYS, no origin) is not reported.
      onPublished: (message: Message) => {
        routing?.published(message);
        const { topic, payload, qos, retain, origin } = message;
        if (origin !== undefined && listeners.get("publish")?.size) emit("publish", { topic, payload, qos, retain, clientId: origin });
      },
    },
  });
  displace = (clientId) => {
    if (giveUpSession(broker.router, clientId)) log.warn({ clientId }, "session claimed by another node; its connection here is closed (0x8E)");
  };
  // In a cluster every message accepted here goes to the other nodes too.
  if (redis !== undefined && groups !== undefined) {
    routing = startClusterRouting({ router: broker.router, store: redis.store, groups, holdFor: (congested) => broker.holdFor(congested), maxStreamBacklog: config.cluster.maxStreamBacklog, log });
    if (redis.store.unsettled.length > 0) log.info({ sessions: redis.store.unsettled.length }, "settling the sessions whose move here a stop interrupted");
    await settleAtStart(redis.store.unsettled, routing.settleMoved, broker.router);
  }
  const metrics = createBrokerMetrics({ processMetrics: extra.processMetrics });
  metrics.observeRouter(broker.router);
  metrics.observeConnections(() => broker.connections);
  registerSafetyMetrics(metrics.registry, {
    get handlerErrors() {
      return broker.counters.handlerErrors;
    },
    get limitsExceeded() {
      return broker.limitsExceeded();
    },
  });
  metrics.observeTraffic(broker.counters);
  if (routing !== undefined) observeRouting(metrics.registry, routing.counters);
  if (store !== undefined) observeStore(metrics.registry, store, () => broker.counters.publishesRefusedStorage);
  const liveness =
    redis === undefined
      ? undefined
      : await startLiveness(config, redis.store, broker, log, routing).catch(async (cause: unknown) => {
          await broker.close(0);
          await routing?.close();
          await redis.stopListening();
          await redis.store.close().catch(() => undefined);
          throw new StoreOpenError(redis.store.file, "unreadable", `heartbeat: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
        });
  if (liveness !== undefined) registerClusterMetrics(metrics.registry, () => liveness.view);

  const bound: Listening[] = [];
  const ports: Partial<Record<"mqtt" | "tls" | "ws" | "wss" | "http", number>> = {};
  let http: HttpServer | undefined;
  let closed: Promise<void> | undefined;
  const started = Date.now();
  const stopAll = async (): Promise<void> => {
    http?.beginShutdown();
    // Stop accepting first; a listener's close completes only once its connections are gone,
    // which is what broker.close() brings about (DISCONNECT 0x8B, then close).
    const closing = Promise.all(bound.map((l) => l.close(config.shutdownGraceMs)));
    await broker.close(config.shutdownGraceMs);
    await closing;
    await http?.close();
    await liveness?.close();
    await routing?.close();
    await redis?.stopListening();
    await store?.close();
  };
  const listen = async (): Promise<BrokerPorts> => {
    try {
      const { tcp, tls, ws, wss } = config.listeners;
      if (tcp !== undefined) bound.push(await listenTcp(broker, log, tcp.host, tcp.port));
      if (tls !== undefined) bound.push(await listenTls(broker, log, tls.host, tls.port, tlsOptions(tls)));
      if (ws !== undefined) bound.push(await listenWs(broker, log, { host: ws.host, port: ws.port, path: ws.path, maxPayload: limits.maxPacketSize }));
      if (wss !== undefined) bound.push(await listenWs(broker, log, { host: wss.host, port: wss.port, path: wss.path, tls: tlsOptions(wss), maxPayload: limits.maxPacketSize }));
      for (const l of bound) ports[l.kind === "tcp" ? "mqtt" : l.kind] = l.address.port;
      if (config.http !== undefined) {
        http = createHttpServer({
          host: config.http.host,
          port: config.http.port,
          registry: metrics.registry,
          status: () => ({
            connections: broker.connections,
            ...(store === undefined ? {} : { storage: storageStatus(store) }),
          }),
          uptimeSeconds: () => (Date.now() - started) / 1000,
          routes: createAdminRoutes({
            token: config.admin.token,
            broker,
            log,
            stats: () => {
              const ws = config.listeners.ws === undefined || ports.ws === undefined ? {} : { websocket: { port: ports.ws, path: config.listeners.ws.path } };
              return statsJson({ router: broker.router, totals: () => metrics.totals(), now: () => Date.now(), uptimeSeconds: () => (Date.now() - started) / 1000, version: `handoff ${VERSION}`, ...ws });
            },
          }),
          onError: (err) => {
            log.warn({ err }, "HTTP request failed");
          },
        });
        ports.http = (await http.listen()).port;
        if (config.admin.token !== undefined) log.info({ port: ports.http }, "admin API on /api/v1 and dashboard on /dashboard of the HTTP port");
      }
    } catch (err) {
      await close();
      throw err;
    }
    return ports;
  };

  // $SYS topics, retained, every 10 s (and once at start), from the counters /metrics reads.
  const publishSys = (): void => {
    const totals = metrics.totals();
    for (const { topic, payload } of sysTopics(sysSnapshot(broker.router, totals), { version: `handoff ${VERSION}`, uptimeSeconds: Math.floor((Date.now() - started) / 1000) })) {
      broker.router.publish({ topic, payload: Buffer.from(payload), qos: 0, retain: true, properties: {} });
    }
  };
  const sysTimer = setInterval(publishSys, 10_000);
  sysTimer.unref();
  publishSys();
  const close = (): Promise<void> => {
    clearInterval(sysTimer);
    closed ??= stopAll();
    return closed;
  };

  const embedded: EmbeddedBroker = {
    listen,
    handle: (stream, handleOptions = {}) => {
      attachStream(broker, log, stream, handleOptions.listener ?? defaultListener(stream), handleOptions.remote);
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return this;
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener);
      return this;
    },
    ports,
    get connections() {
      return broker.connections;
    },
    metrics: { registry: metrics.registry, totals: () => metrics.totals() },
    reload: () => auth.reload(),
    publishSys,
    close,
  };
  return { embedded, broker };
}

// A cluster node's heartbeat, and its share of adopting the sessions of nodes found dead.
async function startLiveness(config: BrokerConfig, store: RedisStore, broker: Broker, log: Logger, routing: ClusterRouting | undefined): Promise<LivenessLoop> {
  return startLivenessLoop({
    ...(routing === undefined ? {} : { settle: routing.settleMoved, uninstalled: routing.uninstalled, onDead: (node: string) => { routing.nodeDead(node); } }),
    onInstalled: (clientIds) => {
      log.info({ sessions: clientIds.length }, "sessions claimed here whose install Redis interrupted are installed (stopped: their wills and expiry run here)");
    },
    url: config.redis.url ?? "",
    keys: new ClusterKeys(config.redis.prefix),
    nodeId: store.nodeId,
    timeoutMs: config.cluster.nodeTimeoutMs,
    store,
    router: broker.router,
    onAdopted: (deadNode, clientIds) => {
      log.warn({ deadNode, sessions: clientIds.length }, "node found dead: its sessions are adopted here (their wills fire after their delay)");
    },
    onError: (err) => {
      log.warn({ err }, "cluster liveness round failed; the next one tries again");
    },
  });
}
