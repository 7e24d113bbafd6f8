import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startRelay } from "../server/relay.js";
import { DemoNotBuiltError, loadDemo, serveDemo, type DemoPage } from "./index.js";

const dirs: string[] = [];
let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "handoff-demo-unit-"));
  dirs.push(dir);
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return dir;
}

/** Serves `page` like the relay does (other paths: 404 "not ours") and returns its base URL. */
async function serve(page: DemoPage): Promise<string> {
  const s = createServer((req, res) => {
    if (!serveDemo(page, new URL(req.url ?? "/", "http://x").pathname, res)) res.writeHead(404).end("not ours");
  });
  server = s;
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${String((s.address() as AddressInfo).port)}`;
}

describe("the demo page's files", () => {
  it("holds only the page's html, js and css", () => {
    const page = loadDemo(folder({ "index.html": "<p>hi", "watch.js": "1", "page.css": "p{}", "secret.env": "x", "watch.js.map": "{}" }));
    expect([...page.keys()].sort()).toEqual(["index.html", "page.css", "watch.js"]);
  });

  it("refuses with DemoNotBuiltError when the folder or its index.html is missing", () => {
    expect(() => loadDemo(join(tmpdir(), "handoff-demo-nowhere"))).toThrow(DemoNotBuiltError);
    expect(() => loadDemo(folder({ "watch.js": "1" }))).toThrow(/no index\.html: run the relay's build/);
  });
});

describe("serveDemo", () => {
  it("redirects /demo to /demo/, serves index.html there and each file by name with its type and CSP", async () => {
    const base = await serve(loadDemo(folder({ "index.html": "<p>index", "watch.js": "export {}" })));
    const redirect = await fetch(`${base}/demo`, { redirect: "manual" });
    expect([redirect.status, redirect.headers.get("location")]).toEqual([308, "/demo/"]);
    const index = await fetch(`${base}/demo/`);
    expect([index.status, index.headers.get("content-type"), await index.text()]).toEqual([200, "text/html; charset=utf-8", "<p>index"]);
    expect(index.headers.get("content-security-policy")).toContain("script-src 'self'");
    const script = await fetch(`${base}/demo/watch.js`);
    expect([script.status, script.headers.get("content-type"), await script.text()]).toEqual([200, "text/javascript; charset=utf-8", "export {}"]);
  });

  it("answers 404 for a file the page does not have, and leaves other paths alone", async () => {
    const base = await serve(loadDemo(folder({ "index.html": "<p>index" })));
    const missing = await fetch(`${base}/demo/nope.js`);
    const traversal = await fetch(`${base}/demo/%2e%2e%2fpackage.json`);
    const other = await fetch(`${base}/demonstration`);
    expect([missing.status, await missing.text(), traversal.status, await other.text()]).toEqual([404, "no such demo file\n", 404, "not ours"]);
  });
});

describe("the relay's /demo", () => {
  it("is served only when the relay is given the page (--demo); 404 otherwise", async () => {
    const page = loadDemo(folder({ "index.html": "<p>index" }));
    const status = async (demo: DemoPage | undefined): Promise<number> => {
      const options = { host: "127.0.0.1", port: 0, tcpPort: undefined, metricsPort: undefined, auth: { key: undefined, publicPublish: [], publicSubscribe: [] }, tcpAccess: "trusted" as const, limits: {} };
      const relay = await startRelay(demo === undefined ? options : { ...options, demo }, pino({ level: "silent" }));
      try {
        return (await fetch(`http://127.0.0.1:${String(relay.ports.http)}/demo/`)).status;
      } finally {
        await relay.close();
      }
    };
    expect([await status(page), await status(undefined)]).toEqual([200, 404]);
  });
});
