import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
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
}

/**
 * The internal port: `GET /metrics` (Prometheus) and `POST /goaway?uri=<uri>&timeout=<ms>`,
 * which moves this relay's sessions elsewhere without stopping it (SIGTERM drains and stops).
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
      goaway(deps, target, res);
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

function goaway(deps: AdminDeps, target: RequestTarget, res: ServerResponse): void {
  const timeoutText = target.query.get("timeout") ?? "10000";
  if (!/^\d+$/.test(timeoutText)) {
    json(res, 400, { error: "timeout must be milliseconds" });
    return;
  }
  const uri = target.query.get("uri") ?? "";
  const timeoutMs = Number(timeoutText);
  const result = deps.drain(uri, timeoutMs);
  json(res, 202, { uri, timeoutMs });
  result.catch((err: unknown) => {
    deps.log.error({ err }, "drain failed");
  });
}
