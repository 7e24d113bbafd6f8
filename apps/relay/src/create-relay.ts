/**
 * The relay as a library: `createRelay(config)` takes the config file's settings (same schema,
 * same errors) and an auth hook, and serves moq-lite sessions on its own port (`listen()`) or
 * through a service's own HTTP server (`handleUpgrade`, `handleRequest`). The CLI (main.ts) runs
 * the same relay from the same settings.
 * @module
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import pino, { type Logger } from "pino";
import type { Registry } from "prom-client";
import type { RelayAuthHook } from "./auth/hook.js";
import { configFromObject, type RelayConfig } from "./config/index.js";
import type { FileConfig } from "./config/schema.js";
import type { DemoPage } from "./demo/index.js";
import { createRelayCore, type RelayPorts } from "./server/relay.js";
import type { DrainOptions, RelayOptions } from "./server/relay-options.js";
import type { DrainResult } from "./server/drain.js";

/** What `createRelay` takes: the config file's settings, the auth hook, a logger. */
export interface CreateRelayOptions extends FileConfig {
  /** A service's own authentication of WebSocket sessions, asked before the JWT check. */
  readonly authenticate?: RelayAuthHook;
  /** Where the relay logs; default: pino at `logLevel` on standard output. */
  readonly logger?: Logger;
}

/** An embedded relay. */
export interface EmbeddedRelay {
  /** Binds the relay's own WebSocket + HTTP port (and the internal ones configured). */
  listen(): Promise<RelayPorts>;
  /** For a service's HTTP server's `upgrade` event: runs a moq-lite session over the WebSocket. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** For its `request` event: `/announced`, `/fetch`, `/health` and the rest of the relay's HTTP API. */
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
  /** The relay's routing of broadcasts. */
  readonly origin: {
    /** This relay's hop id (loop detection across relays). */
    readonly hopId: number;
    /** Broadcast paths announced under `prefix` (default: all). */
    announced(prefix?: string): string[];
  };
  /** Open sessions. */
  readonly sessions: number;
  /** The Prometheus registry and its text rendering (what `/metrics` serves). */
  readonly metrics: { readonly registry: Registry; text(): Promise<string> };
  /** GOAWAY to every session, serve them until they leave or the window passes, close the rest. */
  drain(options: DrainOptions): Promise<DrainResult>;
  /** Stops accepting, closes every session (and its socket, whichever server it came from). */
  close(): Promise<void>;
}

/** The relay's options from validated settings (files read through `read`), as the CLI and `createRelay` run it. */
export function relayOptions(config: RelayConfig, read: (path: string | undefined) => Buffer | undefined, extra: { readonly demo?: DemoPage; readonly authHook?: RelayAuthHook; readonly processMetrics: boolean }): RelayOptions {
  const cert = read(config.tls.cert);
  const key = read(config.tls.key);
  const ca = read(config.tls.ca);
  return {
    host: config.host,
    internalHost: config.internalHost,
    port: config.port,
    tcpPort: config.tcpPort,
    metricsPort: config.metricsPort,
    processMetrics: extra.processMetrics,
    auth: config.auth,
    tcpAccess: config.tcpAccess,
    limits: config.limits,
    trackLingerMs: config.trackLingerMs,
    closeGraceMs: config.closeGraceMs,
    redirect: config.cluster.redirect,
    corsOrigins: config.corsOrigins,
    ...(config.adminToken === undefined ? {} : { adminToken: config.adminToken }),
    ...(config.hopId === undefined ? {} : { hopId: config.hopId }),
    ...(cert === undefined || key === undefined ? {} : { tls: { cert, key } }),
    ...(extra.demo === undefined ? {} : { demo: extra.demo }),
    ...(extra.authHook === undefined ? {} : { authHook: extra.authHook }),
    cluster: {
      ...(ca === undefined ? {} : { ca }),
      peers: config.cluster.peers,
      timing: { handoverTimeoutMs: config.cluster.handoverTimeoutMs, dialTimeoutMs: config.cluster.dialTimeoutMs },
    },
  };
}

/**
 * Creates a relay from settings with the config file's keys (validated by the same schema: a
 * `ConfigError` names every problem). It takes sessions through `handleUpgrade` at once, and on
 * its own port after `listen()`.
 */
export function createRelay(options: CreateRelayOptions = {}): EmbeddedRelay {
  const { authenticate, logger, ...settings } = options;
  const config = configFromObject(settings);
  const log = logger ?? pino({ name: "relay", level: config.logLevel });
  const core = createRelayCore(
    relayOptions(config, (path) => (path === undefined ? undefined : readFileSync(path)), { processMetrics: false, ...(authenticate === undefined ? {} : { authHook: authenticate }) }),
    log,
  );
  const { origin, metrics, sessions } = core;
  return {
    listen: () => core.listen(),
    handleUpgrade: (req, socket, head) => {
      core.handleUpgrade(req, socket, head);
    },
    handleRequest: (req, res) => {
      core.handleRequest(req, res);
    },
    origin: {
      hopId: origin.hopId,
      announced: (prefix = "") => origin.announced(prefix).flatMap((event) => (event.active ? [event.path] : [])),
    },
    get sessions() {
      return sessions.size;
    },
    metrics: { registry: metrics.registry, text: () => metrics.render() },
    drain: (drainOptions) => core.drain(drainOptions),
    close: () => core.close(),
  };
}
