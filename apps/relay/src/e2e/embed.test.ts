// The relay as a library: a service mounts it on its own HTTP server (its `upgrade` and `request`
// events), with an auth hook next to JWT, and @moq/lite publishes and watches through it;
// closing leaves no socket, server or timer behind.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as Moq from "@moq/lite";
import { watchHandles } from "@handoff/app-kit/testing";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ConfigError, createRelay, type EmbeddedRelay } from "../index.js";
import { connect, e2eSetup, payload, trackPublisher, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();
const log = pino({ level: process.env["HANDOFF_TEST_LOG"] ?? "silent" });

interface Service {
  readonly relay: EmbeddedRelay;
  readonly server: Server;
  readonly port: number;
}

/** A service's HTTP server: `/api/*` its own, the rest (WebSocket sessions, `/announced`…) the relay's. */
async function startService(): Promise<Service> {
  const relay = createRelay({
    logger: log,
    closeGraceMs: 200,
    // With a key, a session without a valid token is refused: the hook is what lets these in.
    auth: { key: "k".repeat(32) },
    authenticate: async ({ path, token }) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (path === "blocked") return { ok: false, status: 403, reason: "blocked by the service" };
      return token === "service-session" ? { ok: true, publish: [""], subscribe: [""] } : undefined;
    },
  });
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/api/") === true) res.writeHead(200, { "content-type": "text/plain" }).end("the service's own\n");
    else relay.handleRequest(req, res);
  });
  server.on("upgrade", (req, socket, head) => {
    relay.handleUpgrade(req, socket, head);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { relay, server, port: (server.address() as AddressInfo).port };
}

async function stopService(s: Service): Promise<void> {
  await s.relay.close();
  await new Promise<void>((resolve, reject) => {
    s.server.close((err) => {
      if (err === undefined) resolve();
      else reject(err);
    });
  });
}

describe("createRelay mounted on a service's own HTTP server", () => {
  it("@moq/lite publishes and watches through it, let in by the service's auth hook", async () => {
    const watch = watchHandles();
    const s = await startService();
    const session = "?jwt=service-session";
    const publisher = await connect(s.port, "room", "default", session);
    const viewer = await connect(s.port, "room", "default", session);
    const pub = trackPublisher(publisher, "cam");
    await until(() => s.relay.origin.announced().includes("room/cam"), 3000, "broadcast announced");
    const track = viewer.consume(Moq.Path.from("cam")).subscribe("video", 0);
    await until(() => pub.tracks.length === 1, 3000, "publisher asked for the track");
    const source = pub.tracks[0];
    if (source === undefined) throw new Error("no track");
    for (let g = 0; g < 3; g++) {
      const group = source.appendGroup();
      for (let f = 0; f < 2; f++) group.writeFrame(payload(g, f));
      group.close();
    }
    for (let g = 0; g < 3; g++) {
      const group = await within(track.nextGroupOrdered(), 3000, "next group");
      expect(group?.sequence).toBe(g);
      for (let f = 0; f < 2; f++) expect(await within(group?.readFrame() ?? Promise.resolve(undefined), 3000, "frame")).toEqual(payload(g, f));
    }
    expect(s.relay.sessions).toBe(2);
    // The relay's HTTP API and the service's own routes share the server.
    const health = await fetch(`http://127.0.0.1:${String(s.port)}/health`, { headers: { connection: "close" } });
    expect(await health.json()).toEqual({ status: "ok" });
    expect(await (await fetch(`http://127.0.0.1:${String(s.port)}/api/x`, { headers: { connection: "close" } })).text()).toBe("the service's own\n");
    // Close with the sessions open: the relay closes the sockets it was handed, whichever server they came from.
    await stopService(s);
    publisher.close();
    viewer.close();
    expect(await watch.settle()).toEqual({});
  });

  it("without the hook's grant, the JWT check decides; the hook's refusal is final", async () => {
    const s = await startService();
    cleanup.push(() => stopService(s));
    // The upgrade's answer, read with a bare WebSocket: 401 (no token), 403 (the hook's refusal).
    const status = (path: string): Promise<number> =>
      new Promise((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${String(s.port)}/${path}`, ["qmux-00"]);
        ws.once("unexpected-response", (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.once("upgrade", (res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on("error", () => undefined);
      });
    expect(await status("room")).toBe(401);
    expect(await status("blocked?jwt=service-session")).toBe(403);
    expect(await status("room?jwt=service-session")).toBe(101);
    expect(await s.relay.metrics.text()).toMatch(/relay_rejected_total\{status="401"\} 1/);
    expect(await s.relay.metrics.text()).toMatch(/relay_rejected_total\{status="403"\} 1/);
  });
});

describe("createRelay's config object", () => {
  it("is validated by the config file's schema, with the same did-you-mean errors", () => {
    expect(() => createRelay({ logger: log, trackLingerMS: 5 } as never)).toThrow(ConfigError);
    expect(() => createRelay({ logger: log, trackLingerMS: 5 } as never)).toThrow(/^createRelay config: unknown key "trackLingerMS".*did you mean "trackLingerMs"/);
    expect(() => createRelay({ logger: log, tls: { cert: "a.pem" } })).toThrow(/^createRelay config: TLS needs both a certificate/);
  });
});
