import type { ServerResponse } from "node:http";
import type { DemoPage } from "./files.js";

/** Where the demo page is served. */
export const DEMO_PATH = "/demo";

// The page runs only its own scripts; it connects to relays over WebSocket, and @moq/net first
// tries WebTransport, fetching a certificate hash over HTTP(S).
const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ws: wss: http: https:; worker-src 'self' blob:; media-src 'self' blob:; img-src 'self' data:; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/**
 * Answers `GET /demo/…` from the built page: `/demo` redirects to `/demo/` (the page's links and
 * scripts are relative), `/demo/` is `index.html`, `/demo/<file>` one of its files (404 for others).
 * Resolves false for paths outside `/demo`.
 */
export function serveDemo(page: DemoPage, path: string, res: ServerResponse): boolean {
  if (path === DEMO_PATH) {
    res.writeHead(308, { location: `${DEMO_PATH}/` }).end();
    return true;
  }
  if (!path.startsWith(`${DEMO_PATH}/`)) return false;
  const name = path.slice(DEMO_PATH.length + 1);
  const file = page.get(name === "" ? "index.html" : name);
  if (file === undefined) {
    res.writeHead(404, { "content-type": "text/plain" }).end("no such demo file\n");
    return true;
  }
  res.writeHead(200, { ...HEADERS, "content-type": file.contentType, "content-length": String(file.body.length) }).end(file.body);
  return true;
}
