// The broker as a library: a service embeds it on its own net.Server and its own http.Server
// (WebSocket via `ws`), with an authenticate hook, and MQTT.js clients publish and subscribe
// through it; closing leaves no handle behind.
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type AddressInfo, type Server } from "node:net";
import type { IClientOptions, MqttClient } from "mqtt";
import { pino } from "pino";
import { watchHandles } from "@handoff/app-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createWebSocketStream, WebSocketServer } from "ws";
import { ConfigError, createBroker, type EmbeddedBroker, type PublishedMessage } from "../index.js";
import { collect, connectClient, outcome, until } from "./harness.test-helpers.js";

const log = pino({ level: process.env["HANDOFF_TEST_LOG"] ?? "silent" });
// Nothing of its own bound: the service's servers carry the clients.
const noListeners = { listeners: { tcp: { enabled: false } }, http: { enabled: false }, storage: "memory" } as const;

const closeServer = (server: Server | HttpServer): Promise<void> =>
  new Promise((resolve, reject) => {
    server.close((err) => {
      if (err === undefined) resolve();
      else reject(err);
    });
  });

const connect = (url: string, options: IClientOptions): Promise<MqttClient> => connectClient(url, options);

interface Service {
  readonly broker: EmbeddedBroker;
  readonly tcpUrl: string;
  readonly wsUrl: string;
  readonly clients: Set<MqttClient>;
  close(): Promise<void>;
}

let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** A service with its own TCP and HTTP servers and the broker inside. */
async function startService(): Promise<Service> {
  const broker = await createBroker({
    ...noListeners,
    logger: log,
    hooks: {
      // Async, as a service asking its user database would be.
      authenticate: async ({ username, password }) => {
        await new Promise((resolve) => setImmediate(resolve));
        return username === "alice" && Buffer.from(password ?? []).toString() === "secret";
      },
      authorizePublish: (_client, topic) => !topic.startsWith("admin/"),
    },
  });
  const tcp = createServer((socket) => {
    broker.handle(socket);
  });
  const http = createHttpServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: http, path: "/mqtt", handleProtocols: (protocols) => (protocols.has("mqtt") ? "mqtt" : false) });
  wss.on("connection", (ws, req) => {
    broker.handle(createWebSocketStream(ws), { listener: "ws", remote: `${req.socket.remoteAddress ?? "?"}:${String(req.socket.remotePort ?? 0)}` });
  });
  tcp.listen(0, "127.0.0.1");
  http.listen(0, "127.0.0.1");
  await Promise.all([once(tcp, "listening"), once(http, "listening")]);
  const clients = new Set<MqttClient>();
  return {
    broker,
    tcpUrl: `mqtt://127.0.0.1:${String((tcp.address() as AddressInfo).port)}`,
    wsUrl: `ws://127.0.0.1:${String((http.address() as AddressInfo).port)}/mqtt`,
    clients,
    close: async () => {
      // The broker's close disconnects every client it was handed (0x8B); the servers then close.
      await broker.close();
      wss.close();
      await Promise.all([closeServer(tcp), closeServer(http)]);
      await Promise.all([...clients].map((c) => c.endAsync(true)));
    },
  };
}

describe("createBroker embedded in a service's own servers", () => {
  it("MQTT.js clients over the service's TCP and WebSocket servers publish and subscribe through it, past an async authenticate hook", async () => {
    const s = await startService();
    service = s;
    const seen: PublishedMessage[] = [];
    const joined: string[] = [];
    s.broker.on("publish", (m) => seen.push(m)).on("client", (info) => joined.push(`${info.clientId}/${info.listener}`));
    const credentials = { username: "alice", password: "secret" };
    const sub = await connect(s.wsUrl, { clientId: "sub", ...credentials });
    s.clients.add(sub);
    await sub.subscribeAsync("t/#", { qos: 1 });
    const pub = await connect(s.tcpUrl, { clientId: "pub", ...credentials });
    s.clients.add(pub);
    await pub.publishAsync("t/1", "one", { qos: 1 });
    await pub.publishAsync("t/0", "zero", { qos: 0 });
    const got = collect(sub);
    await until(() => got.length === 2, 5000, "two messages over WebSocket");
    expect(got.map((m) => [m.topic, m.payload, m.qos])).toEqual([
      ["t/1", "one", 1],
      ["t/0", "zero", 0],
    ]);
    expect(joined).toEqual(["sub/ws", "pub/tcp"]);
    expect(seen.map((m) => [m.topic, Buffer.from(m.payload).toString(), m.clientId])).toEqual([
      ["t/1", "one", "pub"],
      ["t/0", "zero", "pub"],
    ]);
    expect(s.broker.connections).toBe(2);
  });

  it("the publish event comes from the router: a will is reported, a refused PUBLISH and the broker's $SYS topics are not", async () => {
    const s = await startService();
    service = s;
    const seen: string[] = [];
    s.broker.on("publish", (m) => seen.push(`${m.topic}/${m.clientId}`));
    const credentials = { username: "alice", password: "secret" };
    const dying = await connect(s.tcpUrl, { clientId: "dying", ...credentials, will: { topic: "wills/dying", payload: Buffer.from("gone"), qos: 1, retain: false } });
    s.clients.add(dying);
    expect(await outcome(dying.publishAsync("admin/x", "no", { qos: 1 }))).toBe(0x87);
    expect(await outcome(dying.publishAsync("ok/x", "yes", { qos: 1 }))).toBe("ok");
    s.broker.publishSys();
    dying.stream.destroy(); // no DISCONNECT: the will goes out
    await until(() => seen.length === 2, 5000, "the will's publish event");
    expect(seen).toEqual(["ok/x/dying", "wills/dying/dying"]);
  });

  it("the hooks refuse: a wrong password gets CONNACK 0x86, a denied topic PUBACK 0x87", async () => {
    const s = await startService();
    service = s;
    await expect(connect(s.tcpUrl, { clientId: "eve", username: "alice", password: "guess" })).rejects.toMatchObject({ code: 0x86 });
    const pub = await connect(s.tcpUrl, { clientId: "pub", username: "alice", password: "secret" });
    s.clients.add(pub);
    expect(await outcome(pub.publishAsync("admin/x", "no", { qos: 1 }))).toBe(0x87);
    expect(await outcome(pub.publishAsync("ok/x", "yes", { qos: 1 }))).toBe("ok");
  });

  it("close disconnects the clients it was handed and leaves no socket, server or timer open", async () => {
    const watch = watchHandles();
    const s = await startService();
    const gone: string[] = [];
    const sub = await connect(s.wsUrl, { clientId: "ws-client", username: "alice", password: "secret" });
    const pub = await connect(s.tcpUrl, { clientId: "tcp-client", username: "alice", password: "secret" });
    for (const client of [sub, pub]) client.on("close", () => gone.push(client.options.clientId ?? ""));
    s.broker.on("clientDisconnect", (info) => gone.push(`${info.clientId}:${info.cause}`));
    await s.close();
    await until(() => gone.length === 4, 5000, "both clients closed");
    expect(gone.filter((g) => !g.includes(":")).sort()).toEqual(["tcp-client", "ws-client"]);
    expect(await watch.settle()).toEqual({});
  });
});

describe("createBroker's config object", () => {
  it("is validated by the config file's schema, with the same did-you-mean errors", async () => {
    await expect(createBroker({ ...noListeners, limits: { maxConections: 5 } } as never)).rejects.toThrow(ConfigError);
    await expect(createBroker({ ...noListeners, limits: { maxConections: 5 } } as never)).rejects.toThrow(/^createBroker config: unknown key "maxConections" in "limits" \(did you mean "maxConnections"\?\)$/);
    await expect(createBroker({ ...noListeners, listeners: { tcp: { port: -1 } } })).rejects.toThrow(/"listeners.tcp.port"/);
  });

  it("applies the rules that span keys", async () => {
    await expect(createBroker({ ...noListeners, storage: { kind: "redis" } })).rejects.toThrow(/createBroker config: "storage.kind" is redis but no "storage.url" is set/);
  });

  it("listen() binds the listeners the config enables, on port 0, and close() unbinds them", async () => {
    const watch = watchHandles();
    const broker = await createBroker({ storage: "memory", logger: log, listeners: { tcp: { port: 0, host: "127.0.0.1" } }, http: { enabled: false } });
    try {
      const ports = await broker.listen();
      expect(ports.mqtt).toBeGreaterThan(0);
      const client = await connect(`mqtt://127.0.0.1:${String(ports.mqtt)}`, { clientId: "own-listener" });
      await client.endAsync();
    } finally {
      await broker.close();
    }
    expect(await watch.settle()).toEqual({});
  });

  it("keeps its state in the storage the config names: SQLite in dataDir, across a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "handoff-embed-"));
    try {
      const settings = { listeners: { tcp: { port: 0, host: "127.0.0.1" } }, http: { enabled: false }, storage: "sqlite", dataDir, logger: log } as const;
      const first = await createBroker(settings);
      const pub = await connect(`mqtt://127.0.0.1:${String((await first.listen()).mqtt)}`, { clientId: "pub" });
      // PUBACK only after the commit: once it is in, the message survives the restart.
      await pub.publishAsync("status", "up", { qos: 1, retain: true });
      await pub.endAsync();
      await first.close();
      const second = await createBroker(settings);
      try {
        const sub = await connect(`mqtt://127.0.0.1:${String((await second.listen()).mqtt)}`, { clientId: "sub" });
        const got = collect(sub);
        await sub.subscribeAsync("status", { qos: 1 });
        await until(() => got.length === 1, 5000, "the retained message");
        expect(got[0]).toMatchObject({ topic: "status", payload: "up", retain: true });
        await sub.endAsync();
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
