import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocketServer } from "ws";
import { Cluster } from "../cluster/cluster.js";
import { ALLOW_ALL, ByteBudget, DEFAULT_SESSION_LIMITS, type LiteSession, Origin, RelayCode, versionMode } from "@handoff/moq-relay";
import { serveDemo } from "../demo/index.js";
import { RelayMetrics } from "../metrics/metrics.js";
import { createFraming, negotiateSubprotocol, negotiateTlsAlpn, TCP_MOQ_ALPNS, tlsAlpns } from "@handoff/qmux";
import { adminHandler } from "./admin.js";
import { attachSession, DEFAULT_CLOSE_GRACE_MS, type AttachContext } from "../connection/attach.js";
import { bindStream, streamCarrier } from "../connection/carriers.js";
import { DEFAULT_SNIFF_TIMEOUT_MS, sniffSocket, type SocketSniff } from "../connection/stream-sniff.js";
import { drainSessions, type DrainResult } from "./drain.js";
import { contain, guarded } from "../connection/guard.js";
import { handleHttp, type HttpRouteOptions } from "./http-routes.js";
import { DEFAULT_PROCESS_LIMITS, type RelayLimits } from "./limits.js";
import { json, refuseUpgrade } from "./refuse.js";
import { parseRequestTarget } from "./request-target.js";
import { upgradeHandler } from "./ws-accept.js";
import { DEFAULT_INTERNAL_HOST, DEFAULT_TRACK_LINGER_MS, type DrainOptions, type RelayOptions } from "./relay-options.js";

/** The ports a relay bound. */
export interface RelayPorts {
  /** The HTTP/WebSocket port. */
  readonly http: number;
  /** The port of relay links over plain TCP, if enabled. */
  readonly tcp: number | undefined;
  /** The separate `/metrics` port, if one was asked for. */
  readonly metrics: number | undefined;
}

/** A running relay. */
export interface Relay {
  /** The ports actually bound. */
  readonly ports: RelayPorts;
  readonly origin: Origin;
  readonly metrics: RelayMetrics;
  /** Open sessions. */
  readonly sessions: ReadonlySet<LiteSession>;
  /** Links to the configured peers. */
  readonly cluster: Cluster;
  /**
   * Sends GOAWAY to every session that connected to this relay (clients and peers that dialed
   * it; links this relay dialed are left alone), serves them until they leave or the window
   * passes, then closes the rest.
   */
  drain(options: DrainOptions): Promise<DrainResult>;
  /** Stops accepting, closes every session and listener. */
  close(): Promise<void>;
}

/** A relay not yet listening: sessions come through `handleUpgrade` until `listen()` binds its own ports. */
export interface RelayCore extends Omit<Relay, "ports"> {
  /** Binds the WebSocket + HTTP port and the internal ones the options name. */
  listen(): Promise<RelayPorts>;
  /** The `upgrade` handler: runs a moq-lite session over a WebSocket upgrade of any HTTP server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The `request` handler: `/announced`, `/fetch`, `/health` and the rest of the relay's HTTP API. */
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
}


function randomHopId(): number {
  // Below 2^53: old @moq/lite decodes hop ids as u53; never 0.
  return 1 + Math.floor(Math.random() * (2 ** 53 - 2));
}

function listen(server: Server | TcpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}


/** Starts the relay: WebSocket + HTTP, optional raw-TCP qmux and metrics listeners. */
export async function startRelay(options: RelayOptions, log: Logger): Promise<Relay> {
  const core = createRelayCore(options, log);
  const ports = await core.listen();
  return { ...core, ports };
}

/** Builds a relay whose sessions arrive through {@link RelayCore.handleUpgrade} or its own ports once `listen()` binds them. */
export function createRelayCore(options: RelayOptions, log: Logger): RelayCore {
  const metrics = new RelayMetrics();
  if (options.processMetrics === true) metrics.collectProcess();
  const origin = new Origin(options.hopId ?? randomHopId(), {
    ...(options.limits.trackCacheGroups === undefined ? {} : { cacheGroups: options.limits.trackCacheGroups }),
    lingerMs: options.trackLingerMs ?? DEFAULT_TRACK_LINGER_MS,
    clock: { now: () => performance.now() },
    onMove: (move) => {
      metrics.trackMoved(move.reason);
      // One line per route change lets an operator follow a track across handovers by its path.
      log.info({ track: `${move.path}/${move.track}`, reason: move.reason, fromSession: move.from, toSession: move.to, boundary: move.boundary }, "track routed");
    },
  });
  const sessions = new Set<LiteSession>();
  const closeGraceMs = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
  const limits: RelayLimits = { ...DEFAULT_SESSION_LIMITS, ...DEFAULT_PROCESS_LIMITS, ...options.limits };
  // Evictions are counted at once and logged once per sweep (a flood must not flood the log).
  const evictions = { track: 0, relay: 0 };
  const budget = new ByteBudget(
    limits,
    {
      evicted: (which, groups) => {
        metrics.evicted(which, groups);
        evictions[which] += groups;
      },
      overflowed: (holder, bytes) => {
        metrics.budgetClosed();
        log.warn({ session: holder.id, bytes, maxRelayBytes: limits.maxRelayBytes }, "relay byte budget full of a session's partial data: closing it (429)");
      },
    },
    (fn) => {
      setImmediate(fn);
    },
  );
  metrics.holding(() => ({ cached: budget.cachedBytes, inbound: budget.inboundBytes }));
  const ctx: AttachContext = { origin, metrics, log, limits, budget, sessions, nextId: 1, closeGraceMs };
  /** True when one more session would pass `maxSessions`. */
  const full = (): boolean => sessions.size >= limits.maxSessions;
  const cluster = new Cluster(ctx, options.cluster ?? { peers: [] });
  const sockets = new Set<Duplex>();
  let accepting = true;

  const routes: HttpRouteOptions = {
    auth: options.auth,
    corsOrigins: options.corsOrigins ?? [],
    ...(options.metricsPort === undefined ? { metrics: { source: metrics, token: options.adminToken } } : {}),
  };
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    try {
      const target = parseRequestTarget(req.url);
      if (target === undefined) {
        metrics.rejected(400);
        log.info({ url: req.url }, "bad request target");
        json(res, 400, { error: "bad request target" });
        return;
      }
      if (options.demo !== undefined && serveDemo(options.demo, target.path, res)) return;
      handleHttp(origin, routes, req, target, res).then(
        (handled) => {
          if (!handled) res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        },
        (err: unknown) => {
          contain(ctx, "http", err, () => {
            res.destroy();
          });
        },
      );
    } catch (err) {
      contain(ctx, "http", err, () => {
        res.destroy();
      });
    }
  };
  const tls = options.tls;
  const http = tls === undefined ? createHttpServer(answer) : createHttpsServer({ cert: tls.cert, key: tls.key }, answer);
  http.on(tls === undefined ? "connection" : "secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 1 << 20,
    handleProtocols: (protocols: Set<string>) => {
      const choice = negotiateSubprotocol(protocols);
      return choice.ok && choice.subprotocol !== undefined ? choice.subprotocol : false;
    },
  });
  const upgrade = upgradeHandler({ ctx, auth: options.auth, ...(options.authHook === undefined ? {} : { authHook: options.authHook }), wss, accepting: () => accepting, full });
  // Upgraded sockets, whichever server they came from, are the relay's to close (and wait for).
  const handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    upgrade(req, socket, head);
  };
  http.on("upgrade", handleUpgrade);

  const acceptTcp = (socket: Socket, alpn: string | false | null | undefined): void => {
    if (!accepting) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    // Small control frames (credit updates, announces) must not wait for Nagle's timer.
    socket.setNoDelay(true);
    // Over TLS the ALPN names the qmux version (qmux-0X.<moq>, or a bare moq ALPN for qmux-00).
    const agreed = negotiateTlsAlpn(alpn);
    const remote = `${socket.remoteAddress ?? "?"}:${String(socket.remotePort ?? 0)}`;
    if (agreed.moqAlpn !== undefined) {
      startTcp(socket, agreed, remote, false, undefined);
      return;
    }
    // No ALPN (plain TCP): the dialer's first bytes tell qmux-00 from the qmux-01/02 records.
    sniffSocket(
      socket,
      options.tcpSniffTimeoutMs ?? DEFAULT_SNIFF_TIMEOUT_MS,
      guarded(ctx, "sniff", () => socket.destroy(), (sniff: SocketSniff) => {
        if (sniff.kind === "closed") {
          sockets.delete(socket);
          return;
        }
        if (sniff.kind === "refused") {
          log.info({ remote, reason: sniff.reason }, "connection refused");
          socket.destroy();
          sockets.delete(socket);
          return;
        }
        // Records: qmux-02 unless the dialer's parameters show a qmux-01 end.
        startTcp(socket, { framing: sniff.kind === "qmux-00" ? "qmux-00" : "qmux-02", moqAlpn: undefined }, remote, sniff.kind === "records", sniff.bytes);
      }),
    );
  };
  const startTcp = (socket: Socket, agreed: ReturnType<typeof negotiateTlsAlpn>, remote: string, matchPeerVersion: boolean, first: Uint8Array | undefined): void => {
    if (!accepting) {
      socket.destroy();
      sockets.delete(socket);
      return;
    }
    const framing = createFraming(agreed.framing, {
      role: "server",
      carrier: "stream",
      autoConsume: true,
      matchPeerVersion,
      params: { applicationProtocols: [...TCP_MOQ_ALPNS] },
    });
    if (full()) {
      // qmux's answer: our transport parameters, then a close with the code, then FIN.
      metrics.rejected(RelayCode.TooMany);
      log.info({ remote, status: RelayCode.TooMany, reason: "too many sessions", maxSessions: limits.maxSessions }, "connection refused");
      framing.close(RelayCode.TooMany, "too many sessions");
      for (const event of framing.poll()) if (event.kind === "send") socket.write(event.bytes);
      socket.end();
      socket.once("close", () => sockets.delete(socket));
      return;
    }
    const permissions =
      options.tcpAccess === "trusted" || options.auth.key === undefined
        ? ALLOW_ALL
        : { publish: options.auth.publicPublish, subscribe: options.auth.publicSubscribe };
    const session = attachSession(ctx, streamCarrier(socket), {
      framing,
      // Over TLS the ALPN fixes the version; plain TCP agrees it in the qmux parameters.
      mode: agreed.moqAlpn === undefined ? { kind: "transport" } : (versionMode(agreed.moqAlpn) ?? { kind: "transport" }),
      root: "",
      permissions,
      transport: "tcp",
      expiresAt: undefined,
      remote,
    });
    bindStream(socket, session, () => {
      sockets.delete(socket);
    });
    if (first !== undefined) session.receive(first);
  };
  const guardedAccept = (socket: Socket, alpn: string | false | null | undefined): void => {
    guarded(ctx, "accept", () => socket.destroy(), acceptTcp)(socket, alpn);
  };
  const tcp =
    options.tcpPort === undefined
      ? undefined
      : tls === undefined
        ? createTcpServer((socket: Socket) => {
            guardedAccept(socket, undefined);
          })
        : createTlsServer({ cert: tls.cert, key: tls.key, ALPNProtocols: tlsAlpns() }, (socket: TLSSocket) => {
            guardedAccept(socket, socket.alpnProtocol);
          });

  const drain = (drainOptions: DrainOptions): Promise<DrainResult> => {
    if (drainOptions.stopAccepting) accepting = false;
    const targets = [...sessions].filter((s) => !cluster.dialed(s));
    return drainSessions(targets, drainOptions.uri, drainOptions.timeoutMs, metrics, log);
  };
  const metricsServer =
    options.metricsPort === undefined
      ? undefined
      : createHttpServer(
          adminHandler({
            metrics,
            log,
            drain: (uri, timeoutMs) => drain({ uri, timeoutMs, stopAccepting: false }),
            token: options.adminToken,
            targets: [...(options.cluster?.peers ?? []), ...(options.redirect === undefined || options.redirect === "" ? [] : [options.redirect])],
          }),
        );
  // CONNECT is not served anywhere: without this answer Node would just drop the socket.
  const refuseConnect = (req: IncomingMessage, socket: Duplex): void => {
    metrics.rejected(405);
    log.info({ method: req.method, url: req.url }, "method not allowed");
    refuseUpgrade(socket, 405, "CONNECT is not served");
  };
  http.on("connect", refuseConnect);
  metricsServer?.on("connect", refuseConnect);

  const bind = async (): Promise<RelayPorts> => {
    const httpPort = await listen(http, options.port, options.host);
    const internalHost = options.internalHost ?? DEFAULT_INTERNAL_HOST;
    const tcpPort = tcp === undefined || options.tcpPort === undefined ? undefined : await listen(tcp, options.tcpPort, internalHost);
    const metricsPort =
      metricsServer === undefined || options.metricsPort === undefined ? undefined : await listen(metricsServer, options.metricsPort, internalHost);
    return { http: httpPort, tcp: tcpPort, metrics: metricsPort };
  };

  cluster.start();
  const sweep = setInterval(() => {
    origin.sweep();
    budget.sweep();
    for (const which of ["track", "relay"] as const) {
      if (evictions[which] === 0) continue;
      const max = which === "track" ? limits.maxTrackBytes : limits.maxRelayBytes;
      log.warn({ budget: which, groups: evictions[which], max, cachedBytes: budget.cachedBytes, inboundBytes: budget.inboundBytes }, "byte budget: oldest groups evicted, their readers told");
      evictions[which] = 0;
    }
  }, 1000);
  sweep.unref();
  return {
    listen: bind,
    handleUpgrade,
    handleRequest: answer,
    origin,
    metrics,
    sessions,
    cluster,
    drain,
    close: async () => {
      accepting = false;
      clearInterval(sweep);
      cluster.stop();
      for (const session of [...sessions]) session.close(RelayCode.Shutdown, "relay shutting down");
      const closing = Promise.all([
        ...[http, tcp, metricsServer].map(
          (server) =>
            new Promise<void>((resolve) => {
              if (!server?.listening) {
                resolve();
                return;
              }
              server.close(() => {
                resolve();
              });
            }),
        ),
        // Sockets upgraded from a service's own server: no server close waits for those.
        ...[...sockets].map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.closed) resolve();
              else socket.once("close", resolve);
            }),
        ),
      ]);
      http.closeIdleConnections();
      metricsServer?.closeIdleConnections();
      // Sockets whose peer never answers the close (half-open, or a request left unfinished)
      // would hold the listeners open: past the grace they are destroyed.
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([
        closing.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => {
            resolve(true);
          }, closeGraceMs);
        }),
      ]);
      clearTimeout(timer);
      if (late) {
        log.info({ sockets: sockets.size + wss.clients.size }, "shutdown grace over: destroying the sockets still open");
        for (const client of wss.clients) client.terminate();
        for (const socket of sockets) socket.destroy();
        http.closeAllConnections();
        metricsServer?.closeAllConnections();
      }
      wss.close();
      await closing;
    },
  };
}
