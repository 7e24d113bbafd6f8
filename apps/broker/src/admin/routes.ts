/**
 * The admin API and the dashboard as extra routes of the health/metrics HTTP server (never the
 * MQTT listeners). Without `admin.token` both answer 404 with how to turn them on; with it, every
 * `/api/` request needs `Authorization: Bearer <token>` (401 otherwise), and the dashboard page is
 * served to anyone, as it holds no data.
 * @module
 */
import type { Logger } from "pino";
import type { HttpReply, HttpRequest, HttpRoutes } from "../http/index.js";
import type { AdminBroker } from "./actions.js";
import { answerApi, API_PREFIX } from "./api.js";
import { DASHBOARD_PATH, dashboardAsset } from "./dashboard/assets.js";
import { AdminError, errorReply, json } from "./reply.js";
import type { StatsJson } from "./stats.js";
import { bearerMatches } from "./token.js";

/** Options of {@link createAdminRoutes}. */
export interface AdminOptions {
  /** The bearer token; undefined: the admin API and dashboard are off. */
  readonly token: string | undefined;
  readonly broker: AdminBroker;
  /** One sample of the live numbers (see stats.ts). */
  readonly stats: () => StatsJson;
  readonly log: Logger;
  /** How long ending a session waits for its client's connection to close, ms (default 5000). */
  readonly disconnectWaitMs?: number;
}

/** How to turn the admin API on, in the 404 it answers while off. */
export const DISABLED_MESSAGE =
  "the admin API and dashboard are off: set admin.token in the config file, or HANDOFF_BROKER_ADMIN_TOKEN, to a secret of at least 16 characters to enable them";

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

function disabled(dashboard: boolean): HttpReply {
  if (!dashboard) return json(404, { error: DISABLED_MESSAGE });
  const body = `<!doctype html><meta charset="utf-8"><title>handoff broker</title><p>The dashboard is off: set <code>admin.token</code> (or <code>HANDOFF_BROKER_ADMIN_TOKEN</code>) to a secret of at least 16 characters to enable it.</p>\n`;
  return { status: 404, contentType: "text/html; charset=utf-8", body };
}

function dashboard(request: HttpRequest): HttpReply {
  const found = dashboardAsset(request.path);
  if (found === undefined) return json(404, { error: `no such dashboard file: ${request.path}` });
  if (request.method !== "GET" && request.method !== "HEAD") return errorReply(new AdminError(405, `${request.method} is not allowed here`, { allow: "GET, HEAD" }));
  return found;
}

/** The routes to hand to the HTTP server. */
export function createAdminRoutes(options: AdminOptions): HttpRoutes {
  const { token, log } = options;
  const disconnectWaitMs = options.disconnectWaitMs ?? 5000;
  return async (request) => {
    const { path, method, remote } = request;
    const api = under(path, "/api");
    const page = under(path, DASHBOARD_PATH);
    if (!api && !page) return undefined;
    if (token === undefined) return disabled(page);
    if (page) return dashboard(request);
    if (!bearerMatches(request.headers.authorization, token)) {
      log.info({ remote, method, path }, "admin request refused: missing or wrong bearer token");
      return errorReply(new AdminError(401, "a valid admin token is required: Authorization: Bearer <admin.token>", { "www-authenticate": 'Bearer realm="handoff-broker"' }));
    }
    try {
      if (!under(path, API_PREFIX)) throw new AdminError(404, `no such endpoint: ${path} (the API is under ${API_PREFIX}/)`);
      const query = new URLSearchParams(request.query);
      return await answerApi(method, path.slice(API_PREFIX.length), { broker: options.broker, log, remote, disconnectWaitMs, query, stats: options.stats });
    } catch (err) {
      if (err instanceof AdminError) return errorReply(err);
      throw err;
    }
  };
}
