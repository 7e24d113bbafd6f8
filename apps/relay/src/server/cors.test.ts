// CORS on /announced and /fetch, over a real socket: the configured origins only, errors
// included, and preflights answered before authentication.
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startRelay, type Relay } from "./relay.js";

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function start(corsOrigins: readonly string[], key?: string): Promise<string> {
  relay = await startRelay(
    { host: "127.0.0.1", port: 0, tcpPort: undefined, metricsPort: 0, auth: { key, publicPublish: [], publicSubscribe: [] }, tcpAccess: "trusted", limits: {}, corsOrigins },
    pino({ level: "silent" }),
  );
  return `http://127.0.0.1:${String(relay.ports.http)}`;
}

const cors = (res: Response): (string | null)[] => [res.headers.get("access-control-allow-origin"), res.headers.get("vary")];

describe("CORS on /announced and /fetch", () => {
  it("sends no CORS headers by default", async () => {
    const base = await start([]);
    const res = await fetch(`${base}/announced/room`, { headers: { origin: "https://app.example" } });
    expect([res.status, ...cors(res)]).toEqual([200, null, null]);
  });

  it("allows a configured origin, on answers and errors alike, and not another", async () => {
    const base = await start(["https://app.example"]);
    const listed = await fetch(`${base}/announced/room`, { headers: { origin: "https://app.example" } });
    const missing = await fetch(`${base}/fetch/room/a/video?group=1`, { headers: { origin: "https://app.example" } });
    const other = await fetch(`${base}/announced/room`, { headers: { origin: "https://evil.example" } });
    expect([
      [listed.status, ...cors(listed), listed.headers.get("access-control-expose-headers")],
      [missing.status, ...cors(missing)],
      [other.status, ...cors(other)],
    ]).toEqual([
      [200, "https://app.example", "Origin", "x-moq-frames"],
      [404, "https://app.example", "Origin"],
      [200, null, "Origin"],
    ]);
  });

  it("allows every origin with *", async () => {
    const base = await start(["*"]);
    const res = await fetch(`${base}/announced`, { headers: { origin: "https://any.example" } });
    expect([res.status, ...cors(res)]).toEqual([200, "*", null]);
  });

  it("answers a preflight from an allowed origin with 204 before authentication, and refuses another origin's", async () => {
    const base = await start(["https://app.example"], "0123456789abcdef-key");
    const preflight = (origin: string): Promise<Response> =>
      fetch(`${base}/fetch/room/a/video?group=0`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" } });
    const allowed = await preflight("https://app.example");
    const refused = await preflight("https://evil.example");
    const plain = await fetch(`${base}/announced`, { method: "OPTIONS" });
    expect([
      [allowed.status, allowed.headers.get("access-control-allow-origin"), allowed.headers.get("access-control-allow-methods"), allowed.headers.get("access-control-allow-headers"), allowed.headers.get("access-control-max-age")],
      [refused.status, refused.headers.get("access-control-allow-origin")],
      [plain.status, plain.headers.get("allow")],
    ]).toEqual([
      [204, "https://app.example", "GET, HEAD", "authorization", "600"],
      [403, null],
      [204, "GET, HEAD, OPTIONS"],
    ]);
    // The real request still needs the token: 401, readable by the page.
    const unauthorized = await fetch(`${base}/announced/room`, { headers: { origin: "https://app.example" } });
    expect([unauthorized.status, unauthorized.headers.get("access-control-allow-origin")]).toEqual([401, "https://app.example"]);
  });

  it("leaves /health and other paths alone", async () => {
    const base = await start(["*"]);
    const res = await fetch(`${base}/health`, { headers: { origin: "https://app.example" } });
    expect([res.status, res.headers.get("access-control-allow-origin")]).toEqual([200, null]);
  });
});
