/**
 * `/metrics` on the relay's main port, for a relay without a metrics port of its own. That port is
 * public (`host`, every interface by default), so the metrics are served only to the bearer of
 * the admin token, as `POST /goaway` is; without one configured the answer says how to get them.
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerMatches } from "@handoff/app-kit";
import type { RelayMetrics } from "../metrics/metrics.js";
import { json } from "./refuse.js";

/** What `/metrics` on the main port serves from. */
export interface MainPortMetrics {
  readonly source: RelayMetrics;
  /** The admin token (`admin.token`); undefined: every request is refused (403). */
  readonly token: string | undefined;
}

/** Answers a request to `/metrics` on the main port. */
export async function serveMetrics(metrics: MainPortMetrics, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "application/json" }).end(JSON.stringify({ error: "method not allowed" }));
    return;
  }
  if (metrics.token === undefined) {
    json(res, 403, { error: "/metrics on this port needs admin.token (HANDOFF_RELAY_ADMIN_TOKEN) as a bearer token, or a port of its own (--metrics-port)" });
    return;
  }
  if (!bearerMatches(req.headers.authorization, metrics.token)) {
    res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end(JSON.stringify({ error: "admin token required" }));
    return;
  }
  let text: string;
  try {
    text = await metrics.source.render();
  } catch {
    json(res, 500, { error: "metrics unavailable" });
    return;
  }
  res.writeHead(200, { "content-type": metrics.source.contentType }).end(req.method === "HEAD" ? undefined : text);
}
