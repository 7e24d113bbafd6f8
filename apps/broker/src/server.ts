/**
 * Starts a whole broker from its settings: the broker core, every configured listener, the HTTP
 * endpoint, `$SYS` publishing; and stops it again. main.ts adds the process concerns (signals,
 * exit codes); tests start servers through here.
 * @module
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { TlsOptions } from "node:tls";
import { topicLevels } from "@handoff/mqtt-router/codec";
import type { Logger } from "pino";
import { createAdminRoutes, statsJson } from "./admin/index.js";
import { Authenticator } from "./auth/index.js";
import type { BrokerConfig, TlsFiles } from "./config/index.js";
import { createHttpServer, type HttpServer } from "./http/index.js";
import { listenTcp, listenTls, type Listening } from "./listeners/tcp.js";
import { listenWs } from "./listeners/ws.js";
import { createBrokerMetrics, observeStore, registerSafetyMetrics, storageStatus, sysSnapshot, sysTopics } from "./metrics/index.js";
import { accessFrom } from "./mqtt/access.js";
import { Broker } from "./mqtt/broker.js";
import { withinTopicLevels } from "./mqtt/snapshot-limits.js";
import { giveUpSession, loadSessionFrom } from "./cluster/session-handoff.js";
import { SqliteStore } from "./storage/index.js";
import { openRedisStorage } from "./storage/redis-config.js";

/** The broker's version (its package.json), as `$SYS/broker/version` and the logs report it. */
export const VERSION = packageVersion();

function packageVersion(): string {
  const parsed: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const version = typeof parsed === "object" && parsed !== null && "version" in parsed ? parsed.version : undefined;
  return typeof version === "string" ? version : "unknown";
}

/** A running broker. */
export interface Server {
  readonly broker: Broker;
  /** Bound ports by listener (only the enabled ones), plus `http`. */
  readonly ports: Readonly<Partial<Record<"mqtt" | "tls" | "ws" | "wss" | "http", number>>>;
  /** Re-reads the password and ACL files (SIGHUP). */
  reload(): Promise<void>;
  /** Publishes the `$SYS` topics now (they also go out at start and every 10 s). */
  publishSys(): void;
  /** Graceful stop: refuse new connections, DISCONNECT 0x8B to clients, flush, close. */
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

/** Starts everything `config` asks for. */
export async function startServer(config: BrokerConfig, log: Logger): Promise<Server> {
  const auth = await Authenticator.load(config.auth, (path) => readFile(path, "utf8"));
  if (config.loopbackOnly) {
    log.warn(
      "anonymous clients are allowed and no host is configured, so the broker listens on loopback (127.0.0.1) only; to accept clients from other machines set a password file, or --host 0.0.0.0 (host: 0.0.0.0 in the config file) to let anonymous clients in from anywhere",
    );
  }
  const { limits } = config;
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
  const broker = new Broker({
    ...(store === undefined ? {} : { store }),
    ...(restored === undefined ? {} : { restore: restored }),
    ...(redis === undefined ? {} : { loadSession: loadSessionFrom(redis.store) }),
    log,
    access: accessFrom(auth),
    maxConnections: limits.maxConnections,
    keepAlive: limits.keepAlive,
    maxClientBuffer: limits.maxClientBuffer,
    stallMs: limits.stallSeconds * 1000,
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
    },
  });
  displace = (clientId) => {
    if (giveUpSession(broker.router, clientId)) log.warn({ clientId }, "session claimed by another node; its connection here is closed (0x8E)");
  };
  const metrics = createBrokerMetrics();
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
  if (store !== undefined) observeStore(metrics.registry, store, () => broker.counters.publishesRefusedStorage);

  const listeners: Listening[] = [];
  const ports: Partial<Record<"mqtt" | "tls" | "ws" | "wss" | "http", number>> = {};
  let http: HttpServer | undefined;
  const started = Date.now();
  const stopAll = async (): Promise<void> => {
    http?.beginShutdown();
    // Stop accepting first; a listener's close completes only once its connections are gone,
    // which is what broker.close() brings about (DISCONNECT 0x8B, then close).
    const closing = Promise.all(listeners.map((l) => l.close(config.shutdownGraceMs)));
    await broker.close(config.shutdownGraceMs);
    await closing;
    await http?.close();
    await redis?.stopListening();
    await store?.close();
  };
  try {
    const { tcp, tls, ws, wss } = config.listeners;
    if (tcp !== undefined) listeners.push(await listenTcp(broker, log, tcp.host, tcp.port));
    if (tls !== undefined) listeners.push(await listenTls(broker, log, tls.host, tls.port, tlsOptions(tls)));
    if (ws !== undefined) listeners.push(await listenWs(broker, log, { host: ws.host, port: ws.port, path: ws.path, maxPayload: limits.maxPacketSize }));
    if (wss !== undefined) listeners.push(await listenWs(broker, log, { host: wss.host, port: wss.port, path: wss.path, tls: tlsOptions(wss), maxPayload: limits.maxPacketSize }));
    for (const l of listeners) ports[l.kind === "tcp" ? "mqtt" : l.kind] = l.address.port;
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
    await stopAll();
    throw err;
  }

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

  return {
    broker,
    ports,
    publishSys,
    reload: async () => {
      const summary = await auth.reload();
      log.info(summary, "auth files reloaded");
    },
    close: async () => {
      clearInterval(sysTimer);
      await stopAll();
    },
  };
}
