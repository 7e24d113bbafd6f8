import type { IncomingMessage, ServerResponse } from "node:http";
import { normalizePath } from "@handoff/moq-resume/lite";
import { varintBytes } from "@handoff/qmux/varint";
import { authenticate, type AuthConfig } from "../auth/jwt.js";
import { allowed, type Origin } from "@handoff/moq-relay";
import { answerOptions, applyCors } from "./cors.js";
import { serveMetrics, type MainPortMetrics } from "./metrics-route.js";
import { json } from "./refuse.js";
import type { RequestTarget } from "./request-target.js";

/** What the main port's plain HTTP endpoints need besides the origin. */
export interface HttpRouteOptions {
  readonly auth: AuthConfig;
  /** Origins whose pages may read `/announced` and `/fetch` (CORS). */
  readonly corsOrigins: readonly string[];
  /** `/metrics` on this port, when the relay has no metrics port of its own. */
  readonly metrics?: MainPortMetrics;
}

/**
 * The relay's plain HTTP endpoints, on the WebSocket port:
 * - `GET /health` → `{"status":"ok"}`
 * - `GET /metrics` → Prometheus text, only without a metrics port and to the admin token's bearer
 * - `GET /announced/<prefix>` → JSON list of the broadcast paths routable under the prefix
 * - `GET /fetch/<broadcast>/<track>?group=N` → the frames of group N of a track the relay is
 *   currently carrying, each prefixed with its QUIC-varint length (the moq-lite frame layout),
 *   `x-moq-frames` giving the count. 404 when the relay does not hold the group, 425 while it is
 *   still open.
 * `/announced` and `/fetch` are scoped like sessions: the token (`?jwt=`, or `Authorization:
 * Bearer`) is checked against the prefix or broadcast asked for, and only what its subscribe
 * grant covers is listed or served (401/403 otherwise, as for a session). Both answer the
 * configured CORS origins, preflights first (see `cors.ts`).
 * Resolves false for any other path (a WebSocket-only path gets 404 from the caller).
 */
export async function handleHttp(origin: Origin, options: HttpRouteOptions, req: IncomingMessage, target: RequestTarget, res: ServerResponse): Promise<boolean> {
  const path = target.path;
  if (path === "/health") {
    json(res, 200, { status: "ok" });
    return true;
  }
  if (path === "/metrics" && options.metrics !== undefined) {
    await serveMetrics(options.metrics, req, res);
    return true;
  }
  const announced = path === "/announced" || path.startsWith("/announced/");
  const fetching = path.startsWith("/fetch/");
  if (!announced && !fetching) return false;
  if (req.method === "OPTIONS") {
    answerOptions(options.corsOrigins, req, res);
    return true;
  }
  applyCors(options.corsOrigins, req, res);
  const scope = normalizePath(path.slice(announced ? "/announced".length : "/fetch/".length));
  // A fetch's scope is its broadcast: the path without the track name.
  const cut = scope.lastIndexOf("/");
  const broadcast = fetching ? (cut <= 0 ? scope : scope.slice(0, cut)) : scope;
  const grant = await authenticate(options.auth, broadcast, tokenOf(req, target), Date.now());
  if (!grant.ok) {
    json(res, grant.status, { error: grant.reason });
    return true;
  }
  const readable = grant.permissions.subscribe;
  if (announced) {
    json(res, 200, origin.announced(scope).map((e) => e.path).filter((p) => allowed(readable, p)));
    return true;
  }
  if (!allowed(readable, broadcast)) {
    json(res, 403, { error: "not allowed to subscribe to this broadcast" });
    return true;
  }
  fetchGroup(origin, scope, target.query.get("group"), res);
  return true;
}

function tokenOf(req: IncomingMessage, target: RequestTarget): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith("Bearer ") === true) return header.slice("Bearer ".length);
  return target.query.get("jwt") ?? undefined;
}

function fetchGroup(origin: Origin, normal: string, groupParam: string | null, res: ServerResponse): void {
  const cut = normal.lastIndexOf("/");
  if (cut <= 0 || groupParam === null || !/^\d+$/.test(groupParam)) {
    json(res, 400, { error: "use /fetch/<broadcast>/<track>?group=N" });
    return;
  }
  const reader = origin.fetchGroup(normal.slice(0, cut), normal.slice(cut + 1), Number(groupParam));
  if (reader === undefined) {
    json(res, 404, { error: "group not held by this relay" });
    return;
  }
  // Read across every copy that holds the group (it may have been continued after a takeover).
  const parts: Uint8Array[] = [];
  for (;;) {
    const event = reader.readFrame();
    if (event.kind === "frame") {
      parts.push(varintBytes(event.payload.length), event.payload);
      continue;
    }
    if (event.kind === "end") break;
    if (event.kind === "pending") {
      json(res, 425, { error: "group still open" });
      return;
    }
    json(res, 404, { error: event.kind === "gap" ? "group incomplete on this relay" : "group not held by this relay" });
    return;
  }
  res.writeHead(200, { "content-type": "application/octet-stream", "x-moq-frames": String(parts.length / 2) });
  res.end(Buffer.concat(parts));
}
