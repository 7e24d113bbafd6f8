import { request as httpRequest, Agent } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry, Counter } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type HttpServer } from "./health-server.js";

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function request(address: AddressInfo, method: string, path: string, agent?: Agent, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: address.port, method, path, agent, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(): Promise<{ server: HttpServer; address: AddressInfo; registry: Registry }> {
  const registry = new Registry();
  new Counter({ name: "test_things_total", help: "Things.", registers: [registry] }).inc(3);
  const server = createHttpServer({ host: "127.0.0.1", port: 0, registry, status: () => ({ fields: { connections: 4 } }), uptimeSeconds: () => 12.9 });
  servers.push(server);
  return { server, address: await server.listen(), registry };
}

describe("HTTP server", () => {
  it("binds a free port when asked for port 0", async () => {
    const { address } = await start();
    expect(address.port).toBeGreaterThan(0);
  });

  it("answers /health with status, uptime and connections", async () => {
    const { address } = await start();
    const reply = await request(address, "GET", "/health");
    expect([reply.status, reply.headers["content-type"], JSON.parse(reply.body)]).toEqual([
      200,
      "application/json; charset=utf-8",
      { status: "ok", uptime: 12, connections: 4 },
    ]);
  });

  it("serves /metrics as Prometheus text with its content type", async () => {
    const { address, registry } = await start();
    const reply = await request(address, "GET", "/metrics");
    expect([reply.status, reply.headers["content-type"], reply.body.includes("test_things_total 3")]).toEqual([200, registry.contentType, true]);
  });

  it("ignores a query string", async () => {
    const { address } = await start();
    expect((await request(address, "GET", "/health?verbose=1")).status).toBe(200);
  });

  it("answers 404 for another path", async () => {
    const { address } = await start();
    expect((await request(address, "GET", "/")).status).toBe(404);
  });

  it("answers 405 with Allow for a method other than GET", async () => {
    const { address } = await start();
    const reply = await request(address, "POST", "/metrics");
    expect([reply.status, reply.headers["allow"]]).toEqual([405, "GET, HEAD"]);
  });

  it("answers HEAD like GET without a body", async () => {
    const { address } = await start();
    const reply = await request(address, "HEAD", "/health");
    expect([reply.status, reply.body]).toEqual([200, ""]);
  });

  it("answers /health with 503 once shutdown has begun", async () => {
    const { server, address } = await start();
    server.beginShutdown();
    const reply = await request(address, "GET", "/health");
    expect([reply.status, (JSON.parse(reply.body) as { status: string }).status]).toEqual([503, "stopping"]);
  });

  it("answers /health with 503 and the problem as its status while the app cannot take work", async () => {
    const server = createHttpServer({ host: "127.0.0.1", port: 0, registry: new Registry(), status: () => ({ fields: { connections: 1 }, problem: "storage-unavailable" }), uptimeSeconds: () => 3 });
    servers.push(server);
    const reply = await request(await server.listen(), "GET", "/health");
    expect([reply.status, JSON.parse(reply.body)]).toEqual([503, { status: "storage-unavailable", uptime: 3, connections: 1 }]);
  });

  it("answers 500 when the metrics cannot be collected", async () => {
    const registry = new Registry();
    new Counter({
      name: "broken_total",
      help: "Fails.",
      registers: [registry],
      collect() {
        throw new Error("boom");
      },
    });
    const errors: unknown[] = [];
    const server = createHttpServer({ host: "127.0.0.1", port: 0, registry, status: () => ({ fields: { connections: 0 } }), onError: (err) => errors.push(err) });
    servers.push(server);
    const reply = await request(await server.listen(), "GET", "/metrics");
    expect([reply.status, errors.length]).toEqual([500, 1]);
  });

  it("ends idle keep-alive connections when closing", async () => {
    // Keep-alive and grace periods far beyond the test timeout: close() can only finish by ending the socket itself.
    const registry = new Registry();
    const server = createHttpServer({ host: "127.0.0.1", port: 0, registry, status: () => ({ fields: { connections: 0 } }), keepAliveTimeoutMs: 600_000, closeGraceMs: 600_000 });
    const address = await server.listen();
    const agent = new Agent({ keepAlive: true });
    const reply = await request(address, "GET", "/health", agent);
    const idle = Object.values(agent.freeSockets).flat();
    const socketClosed = new Promise<void>((resolve) => {
      idle[0]?.once("close", () => {
        resolve();
      });
    });
    await server.close();
    await socketClosed;
    agent.destroy();
    expect([reply.headers["connection"], idle.length]).toEqual(["keep-alive", 1]);
  });

  it("hands other paths to the extra routes, with the query and headers, and sends their reply", async () => {
    const seen: unknown[] = [];
    const server = createHttpServer({
      host: "127.0.0.1",
      port: 0,
      registry: new Registry(),
      status: () => ({ fields: { connections: 0 } }),
      routes: (request) => {
        seen.push([request.method, request.path, request.query, request.headers["x-probe"], request.remote.startsWith("127.0.0.1:")]);
        return Promise.resolve(request.path === "/extra" ? { status: 201, contentType: "text/plain", body: "made", headers: { "x-extra": "1" } } : undefined);
      },
    });
    servers.push(server);
    const address = await server.listen();
    const made = await request(address, "DELETE", "/extra?a=1", undefined, { "x-probe": "p" });
    const passed = await request(address, "GET", "/other");
    expect([made.status, made.body, made.headers["x-extra"], passed.status, seen]).toEqual([
      201,
      "made",
      "1",
      404,
      [
        ["DELETE", "/extra", "a=1", "p", true],
        ["GET", "/other", "", undefined, true],
      ],
    ]);
  });

  it("answers 500 when an extra route fails, and keeps serving", async () => {
    const errors: unknown[] = [];
    const server = createHttpServer({ host: "127.0.0.1", port: 0, registry: new Registry(), status: () => ({ fields: { connections: 0 } }), routes: () => Promise.reject(new Error("boom")), onError: (err) => errors.push(err) });
    servers.push(server);
    const address = await server.listen();
    expect([(await request(address, "GET", "/x")).status, (await request(address, "GET", "/health")).status, errors.length]).toEqual([500, 200, 1]);
  });

  it("refuses to bind a port that is taken", async () => {
    const { address } = await start();
    const second = createHttpServer({ host: "127.0.0.1", port: address.port, registry: new Registry(), status: () => ({ fields: { connections: 0 } }) });
    await expect(second.listen()).rejects.toThrow(/EADDRINUSE/);
  });
});
