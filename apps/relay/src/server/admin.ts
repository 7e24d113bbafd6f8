import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerMatches } from "@handoff/app-kit";
import type { Logger } from "pino";
import { parsePeerUrl, PeerUrlError, type PeerAddress } from "../cluster/peer-url.js";
import type { RelayMetrics } from "../metrics/metrics.js";
import type { DrainResult } from "./drain.js";
import { json } from "./refuse.js";
import { parseRequestTarget, type RequestTarget } from "./request-target.js";

/** What the internal (metrics) port serves from. */
export interface AdminDeps {
  readonly metrics: RelayMetrics;
  readonly log: Logger;
  /** Moves the current sessions to `uri` without stopping the relay. */
  readonly drain: (uri: string, timeoutMs: number) => Promise<DrainResult>;
  /** Bearer token `POST /goaway` needs; undefined: the endpoint refuses every call (403). */
  readonly token: string | undefined;
  /** Where `POST /goaway` may send the sessions besides "" (the same endpoint): the configured peers and redirect. */
  readonly targets: readonly string[];
}

/**
 * The internal port: `GET /metrics` (Prometheus) and `POST /goaway?uri=<uri>&timeout=<ms>`,
 * which moves this relay's sessions elsewhere without stopping it (SIGTERM drains and stops). The
 * goaway needs `Authorization: Bearer <admin token>` and a target among the configured ones: anyone
 * who reaches the port could otherwise redirect every session.
 */
export function adminHandler(deps: AdminDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = parseRequestTarget(req.url);
    if (target === undefined) {
      deps.log.info({ url: req.url }, "internal port: bad request target");
      json(res, 400, { error: "bad request target" });
      return;
    }
    if (target.path === "/goaway" && req.method === "POST") {
      goaway(deps, req, target, res);
      return;
    }
    if (target.path !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    deps.metrics.render().then(
      (text) => res.writeHead(200, { "content-type": deps.metrics.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  };
}

function sameEndpoint(a: PeerAddress, b: PeerAddress): boolean {
  return a.transport === b.transport && a.secure === b.secure && a.host === b.host && a.port === b.port && a.path === b.path;
}

/** Whether `uri` is "" or names one of the configured endpoints. */
function allowedTarget(uri: string, targets: readonly string[]): boolean {
  if (uri === "") return true;
  let wanted: PeerAddress;
  try {
    wanted = parsePeerUrl(uri);
  } catch (err) {
    if (err instanceof PeerUrlError) return false;
    throw err;
  }
  return targets.some((t) => {
    try {
      return sameEndpoint(parsePeerUrl(t), wanted);
    } catch (err) {
      if (err instanceof PeerUrlError) return false;
      throw err;
    }
  });
}

function goaway(deps: AdminDeps, req: IncomingMessage, target: RequestTarget, res: ServerResponse): void {
  if (deps.token === undefined) {
    deps.log.info("POST /goaway refused: no admin token configured");
    json(res, 403, { error: "POST /goaway needs admin.token configured" });
    return;
  }
  if (!bearerMatches(req.headers.authorization, deps.token)) {
    deps.log.info({ remote: req.socket.remoteAddress }, "POST /goaway refused: bad or missing admin token");
    res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end(JSON.stringify({ error: "admin token required" }));
    return;
  }
  const timeoutText = target.query.get("timeout") ?? "10000";
  if (!/^\d+$/.test(timeoutText)) {
    json(res, 400, { error: "timeout must be milliseconds" });
    return;
  }
  const uri = target.query.get("uri") ?? "";
  if (!allowedTarget(uri, deps.targets)) {
    deps.log.info({ uri }, "POST /goaway refused: target is not a configured peer or redirect");
    json(res, 400, { error: "uri must be empty or a configured peer or redirect" });
    return;
  }
  const timeoutMs = Number(timeoutText);
  const result = deps.drain(uri, timeoutMs);
  json(res, 202, { uri, timeoutMs });
  result.catch((err: unknown) => {
    deps.log.error({ err }, "drain failed");
  });
}
