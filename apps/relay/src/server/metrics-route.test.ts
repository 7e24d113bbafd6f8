// /metrics on the main port when the relay has no metrics port, over a real socket.
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startRelay, type Relay } from "./relay.js";

const TOKEN = "admin-token-0123456789";

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function start(metricsPort: number | undefined, adminToken?: string): Promise<Relay> {
  relay = await startRelay(
    { host: "127.0.0.1", port: 0, tcpPort: undefined, metricsPort, auth: { key: undefined, publicPublish: [], publicSubscribe: [] }, tcpAccess: "trusted", limits: {}, ...(adminToken === undefined ? {} : { adminToken }) },
    pino({ level: "silent" }),
  );
  return relay;
}

const main = (r: Relay): string => `http://127.0.0.1:${String(r.ports.http)}/metrics`;

describe("/metrics on the main port", () => {
  it("is served to the admin token's bearer when no metrics port is configured", async () => {
    const r = await start(undefined, TOKEN);
    const res = await fetch(main(r), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect([res.status, res.headers.get("content-type"), (await res.text()).includes('relay_sessions')]).toEqual([200, r.metrics.contentType, true]);
  });

  it("refuses a missing or wrong token with 401, and another method with 405", async () => {
    const r = await start(undefined, TOKEN);
    const missing = await fetch(main(r));
    const wrong = await fetch(main(r), { headers: { authorization: "Bearer wrong-token-0000000000" } });
    const post = await fetch(main(r), { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
    expect([missing.status, missing.headers.get("www-authenticate"), wrong.status, post.status, post.headers.get("allow")]).toEqual([401, "Bearer", 401, 405, "GET, HEAD"]);
  });

  it("says how to turn it on without an admin token", async () => {
    const r = await start(undefined);
    const res = await fetch(main(r));
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([403, expect.stringMatching(/admin\.token.*--metrics-port/)]);
  });

  it("is not on the main port when a metrics port is configured", async () => {
    const r = await start(0, TOKEN);
    const res = await fetch(main(r), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
  });
});
