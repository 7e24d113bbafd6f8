/**
 * CORS for the relay's read endpoints (`/announced`, `/fetch`), so a page served elsewhere can
 * use them: the configured origins (`corsOrigins`, `--cors-origin`; none by default, `*` for any)
 * get `Access-Control-Allow-Origin` on every answer, errors included, and a preflight (`OPTIONS`
 * with `Access-Control-Request-Method`) is answered without authentication, as browsers send it
 * without the token. No cookies are read, so credentials are never allowed.
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { json } from "./refuse.js";

const METHODS = "GET, HEAD";

/** The `Access-Control-Allow-Origin` value for the request's `Origin`, or undefined when it is not allowed (or absent). */
function allowedOrigin(origins: readonly string[], origin: string | undefined): string | undefined {
  if (origin === undefined || origins.length === 0) return undefined;
  if (origins.includes("*")) return "*";
  return origins.includes(origin) ? origin : undefined;
}

/**
 * Sets the CORS headers an answer to `req` carries (before it is written). `Vary: Origin` whenever
 * the answer depends on the origin, so a cache never hands one origin's answer to another.
 */
export function applyCors(origins: readonly string[], req: IncomingMessage, res: ServerResponse): void {
  if (origins.length === 0) return;
  if (!origins.includes("*")) res.setHeader("vary", "Origin");
  const allowed = allowedOrigin(origins, req.headers.origin);
  if (allowed === undefined) return;
  res.setHeader("access-control-allow-origin", allowed);
  res.setHeader("access-control-expose-headers", "x-moq-frames");
}

/**
 * Answers an `OPTIONS` request to a read endpoint: a preflight from an allowed origin gets 204 with
 * the methods and the one request header the endpoints read (`Authorization`); from another
 * origin 403 without CORS headers (the browser then refuses the real request); a plain OPTIONS
 * 204 with `Allow`.
 */
export function answerOptions(origins: readonly string[], req: IncomingMessage, res: ServerResponse): void {
  const preflight = req.headers.origin !== undefined && req.headers["access-control-request-method"] !== undefined;
  if (!preflight) {
    res.writeHead(204, { allow: `${METHODS}, OPTIONS` }).end();
    return;
  }
  applyCors(origins, req, res);
  if (allowedOrigin(origins, req.headers.origin) === undefined) {
    json(res, 403, { error: "origin not allowed (corsOrigins)" });
    return;
  }
  res.writeHead(204, {
    "access-control-allow-methods": METHODS,
    "access-control-allow-headers": "authorization",
    "access-control-max-age": "600",
    vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
  });
  res.end();
}
