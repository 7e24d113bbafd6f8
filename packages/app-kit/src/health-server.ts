/**
 * An app's HTTP endpoint for operators: `GET /health` for load balancers and orchestrators,
 * `GET /metrics` for Prometheus, and whatever extra {@link HttpRoutes} answer (the broker's admin
 * API and dashboard). Anything else: 404 for other paths, 405 for other methods (HEAD is answered
 * like GET, without a body).
 * @module
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What `/health` reports besides status and uptime. */
export interface HealthReport {
  /** Fields of the JSON body after `status` and `uptime` (`connections`, `storage`). */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Set while the app cannot take new work: it becomes the `status` and the answer is 503. */
  readonly problem?: string;
}

/** What `/metrics` serializes: a prom-client registry fits. */
export interface MetricsSource {
  /** The Prometheus text format's content type. */
  readonly contentType: string;
  /** The metrics as text. */
  metrics(): Promise<string>;
}

/** A request as extra routes see it: no body is read (none of them takes one). */
export interface HttpRequest {
  readonly method: string;
  /** The path, still percent-encoded, without the query. */
  readonly path: string;
  /** The query string without its `?` (empty when there is none). */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** `host:port` of the peer, for logs. */
  readonly remote: string;
}

/** A complete answer of an extra route. */
export interface HttpReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Extra routes: an answer for the paths they serve, undefined for the rest (then 404). */
export type HttpRoutes = (request: HttpRequest) => Promise<HttpReply | undefined>;

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions {
  /** Interface to bind. */
  readonly host: string;
  /** Port; 0 picks a free one. */
  readonly port: number;
  /** What `/metrics` serializes (a prom-client `Registry`). */
  readonly registry: MetricsSource;
  /** Called on each `/health` request. */
  readonly status: () => HealthReport;
  /** Seconds since the app started (default: the process's uptime). */
  readonly uptimeSeconds?: () => number;
  /** How long `close()` lets in-flight requests finish before cutting their sockets, ms (default 1000). */
  readonly closeGraceMs?: number;
  /** How long an idle keep-alive connection stays open, ms (default: node's 5000). */
  readonly keepAliveTimeoutMs?: number;
  /** Asked for every path other than `/health` and `/metrics`. */
  readonly routes?: HttpRoutes;
  /** Called with an error `/metrics` could not serialize (default: ignored; the client sees 500). */
  readonly onError?: (err: unknown) => void;
}

/** The health and metrics server. */
export interface HttpServer {
  /** Binds; resolves with the address actually bound (the chosen port when 0 was asked for). */
  listen(): Promise<AddressInfo>;
  /** From now on `/health` answers 503 so balancers stop sending clients; everything else still works. */
  beginShutdown(): void;
  /** Answers 503 on `/health`, stops accepting, closes idle keep-alive sockets, and resolves once all are gone. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store", "content-length": Buffer.byteLength(body), ...headers });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value), headers);
}

/**
 * The path of a request target, without its query. Not `new URL`: a target like `//[` is no URL
 * and would throw; only the exact paths served matter, anything else is a 404.
 */
function splitTarget(target: string | undefined): { readonly path: string; readonly query: string } {
  const raw = target ?? "/";
  const query = raw.indexOf("?");
  return query === -1 ? { path: raw, query: "" } : { path: raw.slice(0, query), query: raw.slice(query + 1) };
}

/** Creates the server (not yet listening). */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const uptime = options.uptimeSeconds ?? (() => process.uptime());
  let stopping = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, query } = splitTarget(req.url);
    if (path !== "/health" && path !== "/metrics") {
      const remote = `${req.socket.remoteAddress ?? "?"}:${String(req.socket.remotePort ?? 0)}`;
      const reply = await options.routes?.({ method: req.method ?? "GET", path, query, headers: req.headers, remote });
      if (reply === undefined) sendJson(res, 404, { error: "not found" });
      else send(res, reply.status, reply.contentType, reply.body, reply.headers);
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      sendJson(res, 405, { error: "method not allowed" }, { allow: "GET, HEAD" });
      return;
    }
    if (path === "/health") {
      const { fields, problem } = options.status();
      const status = stopping ? "stopping" : (problem ?? "ok");
      sendJson(res, status === "ok" ? 200 : 503, { status, uptime: Math.floor(uptime()), ...fields });
      return;
    }
    try {
      send(res, 200, options.registry.contentType, await options.registry.metrics());
    } catch (err) {
      options.onError?.(err);
      sendJson(res, 500, { error: "metrics unavailable" });
    }
  }

  const server: Server = createServer((req, res) => {
    // Nothing a request does may end the process: a failure is logged and answered with 500.
    handle(req, res).catch((err: unknown) => {
      options.onError?.(err);
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
      else res.destroy();
    });
  });

  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;

  return {
    listen: () =>
      new Promise<AddressInfo>((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port, options.host, () => {
          server.off("error", reject);
          const address = server.address();
          if (address === null || typeof address === "string") reject(new Error("HTTP server has no TCP address"));
          else resolve(address);
        });
      }),
    beginShutdown() {
      stopping = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (!server.listening) {
          resolve();
          return;
        }
        // A keep-alive socket would hold close() open until it times out; a busy one gets a grace period.
        const grace = setTimeout(() => {
          server.closeAllConnections();
        }, options.closeGraceMs ?? 1000);
        grace.unref();
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
