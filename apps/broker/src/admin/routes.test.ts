import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { DISABLED_MESSAGE } from "./routes.js";
import type { StatsJson } from "./stats.js";
import { START, TOKEN, world } from "./test-world.test-helpers.js";

const iso = (ms: number): string => new Date(ms).toISOString();

describe("admin routes while off (no admin.token)", () => {
  it("answer the API with 404 and how to enable it", async () => {
    const w = world({ token: undefined });
    expect(await w.askJson("GET", "/api/v1/clients")).toMatchObject({ status: 404, body: { error: DISABLED_MESSAGE } });
    expect(DISABLED_MESSAGE).toMatch(/admin\.token.*HANDOFF_BROKER_ADMIN_TOKEN.*16 characters/);
  });

  it("answer the dashboard with a 404 page saying how to enable it", async () => {
    const reply = await world({ token: undefined }).ask("GET", "/dashboard");
    expect([reply?.status, reply?.contentType, reply?.body.includes("admin.token")]).toEqual([404, "text/html; charset=utf-8", true]);
  });
});

describe("admin routes", () => {
  it("leave other paths to the server's 404", async () => {
    expect(await world().ask("GET", "/apix")).toBeUndefined();
  });

  it("answer 401 with a Bearer challenge without a token, with a wrong one, and log the refusal", async () => {
    const w = world();
    const missing = await w.askJson("GET", "/api/v1/clients", null);
    const wrong = await w.askJson("GET", "/api/v1/clients", `${TOKEN}x`);
    expect([missing.status, missing.headers["www-authenticate"], wrong.status]).toEqual([401, 'Bearer realm="handoff-broker"', 401]);
    expect(w.lines.filter((l) => l.msg.includes("refused")).map((l) => l.level)).toEqual([30, 30]);
  });

  it("check the token before saying whether a path exists", async () => {
    expect((await world().askJson("GET", "/api/v9/nothing", null)).status).toBe(401);
  });

  it("answer 404 for an unknown endpoint and another API version", async () => {
    const w = world();
    const [unknown, version] = [await w.askJson("GET", "/api/v1/nothing"), await w.askJson("GET", "/api/v2/clients")];
    expect([unknown.status, version.status, version.body]).toEqual([404, 404, { error: expect.stringContaining("/api/v1/") as string }]);
  });

  it("answer 405 with Allow for a method an endpoint does not take", async () => {
    const w = world();
    w.connect("c");
    const [post, get] = [await w.askJson("POST", "/api/v1/clients"), await w.askJson("GET", "/api/v1/clients/c/kick")];
    expect([post.status, post.headers["allow"], get.status, get.headers["allow"]]).toEqual([405, "GET, HEAD", 405, "POST"]);
  });

  it("answer HEAD like GET", async () => {
    expect((await world().ask("HEAD", "/api/v1/sessions"))?.status).toBe(200);
  });

  it("serve the stats sample as JSON", async () => {
    const sample = { at: 1, connections: 2 } as unknown as StatsJson;
    expect(await world({ stats: () => sample }).askJson("GET", "/api/v1/stats")).toMatchObject({ status: 200, body: sample });
  });
});

describe("GET /api/v1/clients", () => {
  it("lists connected clients with address, protocol, time connected, user and queue numbers", async () => {
    const w = world();
    w.connect("c", { receiveMaximum: 1 });
    w.subscribe("c", "t");
    w.publish("t", "1");
    w.publish("t", "2");
    w.connect("offline-later");
    w.disconnect("offline-later");
    expect((await w.askJson("GET", "/api/v1/clients")).body).toEqual({
      clients: [
        {
          clientId: "c",
          username: "alice",
          address: "127.0.0.1:50000",
          listener: "tcp",
          protocol: "MQTT 5.0",
          protocolVersion: 5,
          connectedAt: iso(START),
          keepAlive: 60,
          cleanStart: false,
          inflight: 1,
          queued: 1,
          subscriptions: 1,
        },
      ],
      next: null,
    });
  });

  it("pages in client id order with limit and cursor", async () => {
    const w = world();
    for (const id of ["c", "a", "b"]) w.connect(id);
    const first = (await w.askJson("GET", "/api/v1/clients?limit=2")).body as { clients: { clientId: string }[]; next: string };
    const second = (await w.askJson("GET", `/api/v1/clients?limit=2&cursor=${first.next}`)).body as { clients: { clientId: string }[]; next: null };
    expect([first.clients.map((c) => c.clientId), first.next, second.clients.map((c) => c.clientId), second.next]).toEqual([["a", "b"], "b", ["c"], null]);
  });

  it("refuses a limit outside 1..1000 with 400", async () => {
    const w = world();
    const statuses = await Promise.all(["0", "1001", "x", "1.5", ""].map(async (limit) => (await w.askJson("GET", `/api/v1/clients?limit=${limit}`)).status));
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
  });

  it("shows one client by its percent-encoded id, 404 for an unknown one, 400 for a malformed escape", async () => {
    const w = world();
    w.connect("site/a b");
    const [found, unknown, malformed] = [
      await w.askJson("GET", "/api/v1/clients/site%2Fa%20b"),
      await w.askJson("GET", "/api/v1/clients/nobody"),
      await w.askJson("GET", "/api/v1/clients/%ZZ"),
    ];
    expect([found.status, (found.body as { clientId: string }).clientId, unknown.status, malformed.status]).toEqual([200, "site/a b", 404, 400]);
  });
});

describe("POST /api/v1/clients/{id}/kick", () => {
  it("disconnects the client, says which reason code an MQTT 5 client got, and logs it at info", async () => {
    const w = world();
    w.connect("c");
    const reply = await w.askJson("POST", "/api/v1/clients/c/kick");
    expect([reply.status, reply.body, w.broker.client("c"), w.router.sessionView("c")?.connected]).toEqual([200, { clientId: "c", reasonCode: 0x98 }, undefined, false]);
    expect(w.lines.find((l) => l.msg === "admin: client disconnected")).toMatchObject({ level: 30, clientId: "c", remote: "127.0.0.1:40000" });
  });

  it("has no reason code to report for an MQTT 3.1.1 client, which is simply closed", async () => {
    const w = world();
    w.connect("old", { protocolVersion: 4 });
    expect((await w.askJson("POST", "/api/v1/clients/old/kick")).body).toEqual({ clientId: "old", reasonCode: null });
  });

  it("answers 404 for a client that is not connected", async () => {
    const w = world();
    w.connect("c");
    w.disconnect("c");
    expect((await w.askJson("POST", "/api/v1/clients/c/kick")).status).toBe(404);
  });
});

describe("GET /api/v1/sessions", () => {
  it("lists online and offline sessions with expiry interval and when an offline one expires", async () => {
    const w = world();
    w.connect("on");
    w.connect("off", { expiry: 60 });
    w.disconnect("off");
    const body = (await w.askJson("GET", "/api/v1/sessions")).body as { sessions: unknown[]; next: null };
    expect(body.sessions).toEqual([
      { clientId: "off", connected: false, protocolVersion: null, expiryInterval: 60, disconnectedAt: iso(START), expiresAt: iso(START + 60_000), queued: 0, inflight: 0, queuedBytes: 0, subscriptions: 0, willArmed: false },
      { clientId: "on", connected: true, protocolVersion: 5, expiryInterval: 3600, disconnectedAt: null, expiresAt: null, queued: 0, inflight: 0, queuedBytes: 0, subscriptions: 0, willArmed: false },
    ]);
  });

  it("shows one session, 404 for an unknown one", async () => {
    const w = world();
    w.connect("c");
    expect([(await w.askJson("GET", "/api/v1/sessions/c")).status, (await w.askJson("GET", "/api/v1/sessions/x")).status]).toEqual([200, 404]);
  });

  it("lists a session's subscriptions with options, identifier and share group", async () => {
    const w = world();
    w.connect("c");
    w.subscribe("c", "$share/g/s/#", 2);
    expect((await w.askJson("GET", "/api/v1/sessions/c/subscriptions")).body).toEqual({
      clientId: "c",
      subscriptions: [{ filter: "$share/g/s/#", qos: 2, noLocal: false, retainAsPublished: false, retainHandling: 0, subscriptionId: null, shareGroup: "g", sharedFilter: "s/#" }],
    });
    expect((await w.askJson("GET", "/api/v1/sessions/x/subscriptions")).status).toBe(404);
  });
});

describe("DELETE /api/v1/sessions/{id}", () => {
  it("ends an offline session: a resume then finds none", async () => {
    const w = world();
    w.connect("c");
    w.subscribe("c", "t");
    w.disconnect("c");
    w.publish("t", "queued");
    const reply = await w.askJson("DELETE", "/api/v1/sessions/c");
    expect([reply.status, reply.body, w.router.sessionView("c"), w.router.subscriptionCount]).toEqual([200, { clientId: "c", kicked: false, discarded: 1 }, undefined, 0]);
    expect(w.lines.find((l) => l.msg === "admin: session ended")).toMatchObject({ level: 30, clientId: "c", discarded: 1 });
  });

  it("disconnects a connected client first, then ends its session", async () => {
    const w = world();
    w.connect("c");
    expect((await w.askJson("DELETE", "/api/v1/sessions/c")).body).toEqual({ clientId: "c", kicked: true, discarded: 0 });
    expect(w.router.sessionView("c")).toBeUndefined();
  });

  it("waits for a connection that closes on a later turn", async () => {
    const w = world();
    w.connect("c");
    w.onKick = (clientId) => {
      setTimeout(() => {
        w.disconnect(clientId);
      }, 20);
    };
    expect((await w.askJson("DELETE", "/api/v1/sessions/c")).status).toBe(200);
  });

  it("answers 503 and keeps the session when the connection does not close in time", async () => {
    const w = world({ disconnectWaitMs: 20 });
    w.connect("c");
    w.onKick = () => undefined;
    expect([(await w.askJson("DELETE", "/api/v1/sessions/c")).status, w.router.sessionView("c")?.connected]).toEqual([503, true]);
  });

  it("answers 503 and keeps the session when the client is back at once", async () => {
    const w = world({ disconnectWaitMs: 20 });
    w.connect("c");
    w.onKick = (clientId) => {
      w.disconnect(clientId);
      w.connect(clientId);
    };
    expect([(await w.askJson("DELETE", "/api/v1/sessions/c")).status, w.router.sessionView("c")?.connected]).toEqual([503, true]);
  });

  it("counts a session that ended with its connection (expiry 0) as ended", async () => {
    const w = world();
    w.connect("c", { expiry: 0 });
    expect((await w.askJson("DELETE", "/api/v1/sessions/c")).body).toEqual({ clientId: "c", kicked: true, discarded: 0 });
  });

  it("answers only once the store has committed the deletion", async () => {
    const w = world();
    w.connect("c");
    w.disconnect("c");
    let commit = (): void => undefined;
    w.commit = () =>
      new Promise<void>((resolve) => {
        commit = resolve;
      });
    let answered = false;
    const reply = w.ask("DELETE", "/api/v1/sessions/c").then((r) => {
      answered = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const before = answered;
    commit();
    expect([before, (await reply)?.status]).toEqual([false, 200]);
  });

  it("answers 503 when the store cannot commit", async () => {
    const w = world();
    w.connect("c");
    w.disconnect("c");
    w.commit = () => Promise.reject(new Error("disk full"));
    expect((await w.askJson("DELETE", "/api/v1/sessions/c")).status).toBe(503);
  });

  it("answers 404 for an unknown session", async () => {
    expect((await world().askJson("DELETE", "/api/v1/sessions/nobody")).status).toBe(404);
  });
});

describe("GET /api/v1/retained", () => {
  it("lists retained messages matching the filter, payloads previewed, in pages", async () => {
    const w = world();
    for (const topic of ["s/1", "s/2", "s/3", "other"]) w.publish(topic, `v${topic}`, { retain: true });
    const first = await w.askJson("GET", "/api/v1/retained?filter=s/%2B&limit=2");
    const next = (first.body as { next: string }).next;
    const second = await w.askJson("GET", `/api/v1/retained?filter=s/%2B&limit=2&cursor=${encodeURIComponent(next)}`);
    expect([first.body, (second.body as { messages: { topic: string }[] }).messages.map((m) => m.topic)]).toEqual([
      {
        filter: "s/+",
        messages: [
          { topic: "s/1", qos: 1, bytes: 4, payload: "vs/1", payloadEncoding: "utf8", truncated: false, contentType: null, expiresAt: null },
          { topic: "s/2", qos: 1, bytes: 4, payload: "vs/2", payloadEncoding: "utf8", truncated: false, contentType: null, expiresAt: null },
        ],
        next: "s/2",
      },
      ["s/3"],
    ]);
  });

  it("defaults to the filter # and shows binary payloads as base64", async () => {
    const w = world();
    w.router.publish({ topic: "bin", payload: new Uint8Array([0xff, 0xfe]), qos: 0, retain: true, properties: {} });
    expect((await w.askJson("GET", "/api/v1/retained")).body).toMatchObject({ filter: "#", messages: [{ topic: "bin", payload: "//4=", payloadEncoding: "base64" }] });
  });

  it("cuts a long payload to its first 256 bytes, not splitting a character", async () => {
    const w = world();
    w.publish("long", `${"a".repeat(255)}é and more`, { retain: true });
    const [m] = ((await w.askJson("GET", "/api/v1/retained")).body as { messages: { payload: string; truncated: boolean }[] }).messages;
    expect([m?.payload, m?.truncated]).toEqual(["a".repeat(255), true]);
  });

  it("refuses a malformed filter with 400", async () => {
    const w = world();
    const statuses = await Promise.all(["a/%23/b", "a%2B", ""].map(async (filter) => (await w.askJson("GET", `/api/v1/retained?filter=${filter}`)).status));
    expect(statuses).toEqual([400, 400, 400]);
  });
});

describe("DELETE /api/v1/retained?topic=", () => {
  it("clears the topic's retained message, logs it, then answers 404 for it", async () => {
    const w = world();
    w.publish("a/b", "x", { retain: true });
    const first = await w.askJson("DELETE", "/api/v1/retained?topic=a%2Fb");
    expect([first.status, first.body, w.router.retainedCount, (await w.askJson("DELETE", "/api/v1/retained?topic=a/b")).status]).toEqual([200, { topic: "a/b", cleared: true }, 0, 404]);
    expect(w.lines.find((l) => l.msg === "admin: retained message cleared")).toMatchObject({ level: 30, topic: "a/b" });
  });

  it("refuses a wildcard topic or a missing one with 400", async () => {
    const w = world();
    expect([(await w.askJson("DELETE", "/api/v1/retained?topic=a/%23")).status, (await w.askJson("DELETE", "/api/v1/retained")).status]).toEqual([400, 400]);
  });
});

describe("the dashboard files", () => {
  it("are served without the token (the page holds no data), with a strict Content-Security-Policy", async () => {
    const w = world();
    const page = await w.ask("GET", "/dashboard", null);
    expect([page?.status, page?.contentType, page?.body.includes('src="/dashboard/app.js"'), page?.headers?.["content-security-policy"]]).toEqual([
      200,
      "text/html; charset=utf-8",
      true,
      expect.stringContaining("script-src 'self'") as string,
    ]);
  });

  it("include a script that parses as JavaScript and a stylesheet", async () => {
    const w = world();
    const [script, style] = [await w.ask("GET", "/dashboard/app.js"), await w.ask("GET", "/dashboard/style.css")];
    expect(() => new Script(script?.body ?? "")).not.toThrow();
    expect([script?.contentType, style?.contentType, style?.status]).toEqual(["text/javascript; charset=utf-8", "text/css; charset=utf-8", 200]);
  });

  it("answer 404 for an unknown file and 405 for another method", async () => {
    const w = world();
    expect([(await w.ask("GET", "/dashboard/nope.js"))?.status, (await w.ask("POST", "/dashboard"))?.status]).toEqual([404, 405]);
  });
});
