// The whole server from its settings (startServer): TLS, ACLs with a password file, /health and
// /metrics, $SYS, graceful shutdown — over real loopback sockets with MQTT.js.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashPassword } from "../auth/index.js";
import { StoreOpenError } from "../storage/index.js";
import { collect, until } from "./harness.test-helpers.js";
import { VERSION } from "../server.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fixtures = new URL("./fixtures/", import.meta.url).pathname;
const fx = serverFixture();
const { start, connect } = fx;

describe("the broker server", () => {
  it("serves MQTT over TLS with the configured certificate", async () => {
    const s = await start(["--tls-port", "0", "--tls-cert", join(fixtures, "localhost-cert.pem"), "--tls-key", join(fixtures, "localhost-key.pem")]);
    const port = s.ports.tls ?? 0;
    expect(port).toBeGreaterThan(0);
    const client = await connect(`mqtts://127.0.0.1:${String(port)}`, { rejectUnauthorized: false });
    await client.subscribeAsync("secure", { qos: 1 });
    await client.publishAsync("secure", "over tls", { qos: 1 });
    await until(() => collect(client).length === 1);
    expect(collect(client)[0]?.payload).toBe("over tls");
  });

  it("refuses a wrong password with CONNACK 0x86", async () => {
    const hash = await hashPassword("s3cret");
    const s = await start((d) => ["--password-file", join(d, "passwords")], { passwords: `alice:${hash}\n` });
    const url = `mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`;
    await expect(connect(url, { username: "alice", password: "wrong" })).rejects.toMatchObject({ code: 0x86 });
    await connect(url, { username: "alice", password: "s3cret" });
  });

  it("enforces ACLs: a denied subscribe gets 0x87 and a denied publish is not delivered", async () => {
    const hash = await hashPassword("s3cret");
    const s = await start((d) => ["--password-file", join(d, "passwords"), "--acl-file", join(d, "acl"), "--allow-anonymous", "false"], {
      passwords: `alice:${hash}\nbob:${hash}\n`,
      acl: "user alice\ntopic readwrite alice/#\ntopic read shared/#\nuser bob\ntopic readwrite shared/#\n",
    });
    const url = `mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`;
    const alice = await connect(url, { username: "alice", password: "s3cret" });
    await expect(alice.subscribeAsync("bob/#", { qos: 1 })).rejects.toMatchObject({ packet: { granted: [0x87] } });
    const granted = await alice.subscribeAsync("shared/#", { qos: 1 });
    expect(granted.map((g) => g.qos)).toEqual([1]);
    await expect(alice.publishAsync("shared/x", "from alice", { qos: 1 })).rejects.toMatchObject({ code: 0x87 });
    const bob = await connect(url, { username: "bob", password: "s3cret" });
    await bob.publishAsync("shared/x", "from bob", { qos: 1 });
    await until(() => collect(alice).length === 1);
    expect(collect(alice).map((m) => m.payload)).toEqual(["from bob"]);
  });

  it("refuses to start on a damaged database file, and starts empty when told to set it aside", async () => {
    const garbage = { "handoff-broker.db": "this is not a database at all, just text".repeat(200) };
    await expect(start(["--storage", "sqlite"], garbage)).rejects.toBeInstanceOf(StoreOpenError);
    const s = await start(["--storage", "sqlite", "--set-aside-corrupt"], garbage);
    expect(s.ports.mqtt).toBeGreaterThan(0);
    expect(readdirSync(fx.dir ?? "").some((name) => name.startsWith("handoff-broker.db.corrupt-"))).toBe(true);
  });

  it("answers /health and serves Prometheus metrics", async () => {
    const s = await start([]);
    const base = `http://127.0.0.1:${String(s.ports.http ?? 0)}`;
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    await connect(`mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`, { clientId: "metered" });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/handoff_broker_connections 1/);
  });

  it("publishes $SYS topics as retained messages", async () => {
    const s = await start([]);
    const client = await connect(`mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`);
    await client.subscribeAsync("$SYS/broker/version", { qos: 0 });
    await until(() => collect(client).length === 1);
    expect(collect(client)[0]).toMatchObject({ retain: true, payload: `handoff ${VERSION}` });
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(VERSION).not.toBe("0.0.0");
  });

  it("sends MQTT 5 clients DISCONNECT 0x8B when it shuts down", async () => {
    const s = await start([]);
    const client = await connect(`mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`);
    const reason = new Promise<number | undefined>((resolve) => {
      client.once("disconnect", (packet) => {
        resolve(packet.reasonCode);
      });
      client.once("close", () => {
        resolve(undefined);
      });
    });
    await s.close();
    fx.closed();
    expect(await reason).toBe(0x8b);
  });
});
