/**
 * The dashboard's files by path. The page holds no data, so it is served without the token; its
 * script asks for the token and sends it with every API call. The Content-Security-Policy lets the
 * page run only its own script and style, and connect only to this origin and WebSockets (the
 * subscription tester talks to the broker's WebSocket listener, another port).
 * @module
 */
import type { HttpReply } from "../../http/index.js";
import { DASHBOARD_HTML } from "./page.js";
import { DASHBOARD_SCRIPT } from "./script.js";
import { DASHBOARD_CSS } from "./style.js";

/** Where the dashboard is served. */
export const DASHBOARD_PATH = "/dashboard";

const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ws: wss:; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const asset = (contentType: string, body: string): HttpReply => ({ status: 200, contentType, body, headers: HEADERS });

const ASSETS: ReadonlyMap<string, HttpReply> = new Map([
  [DASHBOARD_PATH, asset("text/html; charset=utf-8", DASHBOARD_HTML)],
  [`${DASHBOARD_PATH}/`, asset("text/html; charset=utf-8", DASHBOARD_HTML)],
  [`${DASHBOARD_PATH}/app.js`, asset("text/javascript; charset=utf-8", DASHBOARD_SCRIPT)],
  [`${DASHBOARD_PATH}/style.css`, asset("text/css; charset=utf-8", DASHBOARD_CSS)],
]);

/** The dashboard file at `path`, if there is one. */
export function dashboardAsset(path: string): HttpReply | undefined {
  return ASSETS.get(path);
}
