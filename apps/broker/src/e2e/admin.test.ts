// The admin HTTP API of a whole server (startServer, SQLite storage) driven over real loopback
// sockets: MQTT.js clients on one side, fetch on the HTTP port on the other.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import mqtt, { type IConnackPacket, type IDisconnectPacket } from "mqtt";
import { describe, expect, it } from "vitest";
import type { Server } from "../server.js";
import { collect, until } from "./harness.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const TOKEN = "e2e-admin-token-abcdefghijklmnop";
const fx = serverFixture();
const { connect } = fx;

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

async function api(server: Server, method: string, path: string, token: string | null = TOKEN): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${String(server.ports.http ?? 0)}${path}`, {
    method,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(WAIT_LIMIT_MS),
  });
  const text = await res.text();
  return { status: res.status, body: res.headers.get("content-type")?.startsWith("application/json") === true ? (JSON.parse(text) as unknown) : text };
}

const start = (extra: string[] = []): Promise<Server> => fx.start(["--admin-token", TOKEN, ...extra]);
const mqttUrl = (server: Server): string => `mqtt://127.0.0.1:${String(server.ports.mqtt ?? 0)}`;

describe("the admin API", () => {
  it("is off without admin.token: 404 with how to turn it on, for the API and the dashboard", async () => {
    const server = await fx.start([]);
    const [clients, dashboard] = [await api(server, "GET", "/api/v1/clients"), await api(server, "GET", "/dashboard")];
    expect([clients.status, clients.body, dashboard.status]).toEqual([404, { error: expect.stringContaining("admin.token") as string }, 404]);
  });

  it("answers 401 without a token and with a wrong one", async () => {
    const server = await start();
    expect([(await api(server, "GET", "/api/v1/clients", null)).status, (await api(server, "GET", "/api/v1/clients", `${TOKEN}-wrong`)).status]).toEqual([401, 401]);
  });

  it("is not served on the MQTT WebSocket listener", async () => {
    const server = await start();
    const res = await fetch(`http://127.0.0.1:${String(server.ports.ws ?? 0)}/api/v1/clients`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(WAIT_LIMIT_MS) });
    expect(res.status).toBe(426);
  });

  it("lists MQTT.js clients with their address, protocol and user, and their subscriptions", async () => {
    const server = await start();
    const v5 = await connect(mqttUrl(server), { clientId: "v5-client", clean: false, properties: { sessionExpiryInterval: 600 } });
    const v4 = await connect(mqttUrl(server), { clientId: "v4-client", protocolVersion: 4 });
    await v5.subscribeAsync({ "sensors/+/temp": { qos: 1, nl: true }, "$share/workers/jobs/#": { qos: 2 } }, { properties: { subscriptionIdentifier: 42 } });
    const listed = (await api(server, "GET", "/api/v1/clients")).body as { clients: { clientId: string; address: string; protocol: string; username: string | null; subscriptions: number }[] };
    const v5Port = (v5.stream as unknown as { localPort: number }).localPort;
    expect(listed.clients.map((c) => [c.clientId, c.protocol, c.username, c.subscriptions])).toEqual([
      ["v4-client", "MQTT 3.1.1", null, 0],
      ["v5-client", "MQTT 5.0", null, 2],
    ]);
    expect(listed.clients[1]?.address).toBe(`127.0.0.1:${String(v5Port)}`);
    expect((await api(server, "GET", "/api/v1/sessions/v5-client/subscriptions")).body).toEqual({
      clientId: "v5-client",
      subscriptions: [
        { filter: "$share/workers/jobs/#", qos: 2, noLocal: false, retainAsPublished: false, retainHandling: 0, subscriptionId: 42, shareGroup: "workers", sharedFilter: "jobs/#" },
        { filter: "sensors/+/temp", qos: 1, noLocal: true, retainAsPublished: false, retainHandling: 0, subscriptionId: 42, shareGroup: null, sharedFilter: null },
      ],
    });
    await v4.endAsync();
    await v5.endAsync();
    const sessions = (await api(server, "GET", "/api/v1/sessions")).body as { sessions: { clientId: string; connected: boolean; expiresAt: string | null }[] };
    expect(sessions.sessions.map((s) => [s.clientId, s.connected, typeof s.expiresAt])).toEqual([["v5-client", false, "string"]]);
  });

  it("kicks an MQTT 5 client with DISCONNECT 0x98 and closes an MQTT 3.1.1 one", async () => {
    const server = await start();
    const v5 = await connect(mqttUrl(server), { clientId: "kick-me" });
    const v4 = await connect(mqttUrl(server), { clientId: "kick-me-too", protocolVersion: 4 });
    const disconnect = new Promise<IDisconnectPacket>((resolve) => v5.once("disconnect", resolve));
    const closed = new Promise<void>((resolve) => v4.once("close", () => { resolve(); }));
    const kicked = [await api(server, "POST", "/api/v1/clients/kick-me/kick"), await api(server, "POST", "/api/v1/clients/kick-me-too/kick")];
    expect([kicked.map((k) => k.body), (await disconnect).reasonCode]).toEqual([[{ clientId: "kick-me", reasonCode: 0x98 }, { clientId: "kick-me-too", reasonCode: null }], 0x98]);
    await closed;
    await until(() => server.broker.connections === 0, 5000, "both connections to close");
    expect((await api(server, "POST", "/api/v1/clients/kick-me/kick")).status).toBe(404);
  });

  it("ends a connected client's session: it is disconnected, a resume gets Session Present 0, also after a restart", async () => {
    const server = await start();
    const dir = fx.dir ?? "";
    const options = { clientId: "ended", clean: false, properties: { sessionExpiryInterval: 3600 } };
    const first = await connect(mqttUrl(server), options);
    await first.subscribeAsync("ended/#", { qos: 1 });
    const disconnect = new Promise<IDisconnectPacket>((resolve) => first.once("disconnect", resolve));
    const deleted = await api(server, "DELETE", "/api/v1/sessions/ended");
    expect([deleted.status, deleted.body, (await disconnect).reasonCode]).toEqual([200, { clientId: "ended", kicked: true, discarded: 0 }, 0x98]);
    expect((await api(server, "GET", "/api/v1/sessions/ended")).status).toBe(404);

    await server.close();
    fx.closed();
    const again = await fx.start(["--admin-token", TOKEN, "--data-dir", dir]);
    const resumed = fx.track(mqtt.connect(mqttUrl(again), { reconnectPeriod: 0, connectTimeout: WAIT_LIMIT_MS, protocolVersion: 5, ...options }));
    const connack = await new Promise<IConnackPacket>((resolve, reject) => {
      resumed.once("connect", resolve);
      resumed.once("error", reject);
    });
    expect([connack.sessionPresent, (await api(again, "GET", "/api/v1/sessions/ended/subscriptions")).body]).toEqual([false, { clientId: "ended", subscriptions: [] }]);
  });

  it("clears a retained topic: a new subscriber gets nothing for it, also after a restart", async () => {
    const server = await start();
    const dir = fx.dir ?? "";
    const publisher = await connect(mqttUrl(server));
    await publisher.publishAsync("status/door", "open", { qos: 1, retain: true });
    await publisher.publishAsync("status/window", "shut", { qos: 1, retain: true });
    const listed = (await api(server, "GET", "/api/v1/retained?filter=status/%2B&limit=1")).body as { messages: { topic: string; payload: string }[]; next: string | null };
    expect([listed.messages.map((m) => [m.topic, m.payload]), listed.next]).toEqual([[["status/door", "open"]], "status/door"]);
    expect((await api(server, "DELETE", "/api/v1/retained?topic=status/door")).body).toEqual({ topic: "status/door", cleared: true });

    await server.close();
    fx.closed();
    const again = await fx.start(["--admin-token", TOKEN, "--data-dir", dir]);
    const subscriber = await connect(mqttUrl(again));
    await subscriber.subscribeAsync("status/#", { qos: 1 });
    // Retained messages come right after the SUBACK, so once a later publish is in, they would be too.
    const marker = await connect(mqttUrl(again));
    await marker.publishAsync("status/marker", "end", { qos: 1 });
    await until(() => collect(subscriber).some((m) => m.topic === "status/marker"), 5000, "the marker");
    expect(collect(subscriber).map((m) => [m.topic, m.payload, m.retain])).toEqual([
      ["status/window", "shut", true],
      ["status/marker", "end", false],
    ]);
  });

  it("serves stats that count the traffic", async () => {
    const server = await start();
    const client = await connect(mqttUrl(server));
    await client.publishAsync("count/me", "x", { qos: 1 });
    const stats = (await api(server, "GET", "/api/v1/stats")).body as { connections: number; messages: { received: number }; websocket: { port: number; path: string } };
    expect([stats.connections, stats.messages.received, stats.websocket]).toEqual([1, 1, { port: server.ports.ws, path: "/mqtt" }]);
  });
});
