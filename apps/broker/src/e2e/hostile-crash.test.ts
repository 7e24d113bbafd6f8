// Hostile input that used to end the process (issue 17: deep topics, one HTTP request, a throwing
// connection), sent over real sockets; each test then checks a bystander MQTT.js client is served.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Packet } from "@handoff/mqtt-router/codec";
import { afterAll, describe, expect, it } from "vitest";
import { allowAll } from "../auth/access.js";
import { roundTrip } from "./bystander.test-helpers.js";
import { collect, startBroker, until } from "./harness.test-helpers.js";
import { connectPacket, rawTcp, type RawClient } from "./raw-client.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();
const deep = (levels: number, level: string): string => Array.from({ length: levels }, () => level).join("/");
const is =
  (type: Packet["type"]) =>
  (p: Packet): boolean =>
    p.type === type;
const sub = (topicFilter: string) => ({ topicFilter, qos: 0 as const, noLocal: false, retainAsPublished: false, retainHandling: 0 as const });
const publish = (topic: string, retain = false): Packet => ({ type: "publish", topic, qos: 0, retain, dup: false, payload: new Uint8Array([1]), properties: {} });

async function connected(port: number, clientId: string, extra: Parameters<typeof connectPacket>[1] = {}): Promise<RawClient> {
  const c = await rawTcp(port);
  c.send(connectPacket(clientId, extra));
  await c.next(is("connack"));
  return c;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function configFile(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "handoff-hostile-"));
  dirs.push(dir);
  writeFileSync(join(dir, "broker.yaml"), yaml);
  return join(dir, "broker.yaml");
}

describe("deep topics", () => {
  it("a 10,000-level filter gets DISCONNECT 0x8F, a 10,000-level topic 0x90, a 10,000-level Will CONNACK 0x90, and the broker keeps serving", async () => {
    const s = await fx.start([]);
    const port = s.ports.mqtt ?? 0;
    const bystander = await fx.connect(`mqtt://127.0.0.1:${String(port)}`);

    const subscriber = await connected(port, "deep-sub");
    subscriber.send({ type: "subscribe", packetId: 1, subscriptions: [sub(deep(10_000, "+"))], properties: {} });
    expect(await subscriber.next(is("disconnect"))).toMatchObject({ reasonCode: 0x8f });
    await subscriber.closed;

    const publisher = await connected(port, "deep-pub");
    publisher.send(publish(deep(10_000, "x"), true));
    expect(await publisher.next(is("disconnect"))).toMatchObject({ reasonCode: 0x90 });
    await publisher.closed;

    const willing = await rawTcp(port);
    willing.send(connectPacket("deep-will", { will: { topic: deep(10_000, "x"), payload: new Uint8Array([1]), qos: 0, retain: true, properties: {} } }));
    expect(await willing.next(is("connack"))).toMatchObject({ reasonCode: 0x90 });
    await willing.closed;

    await roundTrip(bystander);
  });

  it("with the cap raised to 20,000 levels, deep filters, topics, retained messages and wills are matched without overflowing the stack", async () => {
    const s = await fx.start(["--config", configFile("limits: { maxTopicLevels: 20000 }\n")]);
    const port = s.ports.mqtt ?? 0;
    const bystander = await fx.connect(`mqtt://127.0.0.1:${String(port)}`);
    const plus = await connected(port, "plus");
    plus.send({ type: "subscribe", packetId: 1, subscriptions: [sub(deep(10_000, "+"))], properties: {} });
    await plus.next(is("suback"));
    const publisher = await connected(port, "publisher");
    publisher.send(publish(deep(10_000, "x"), true));
    await plus.next(is("publish"));

    const all = await connected(port, "all");
    all.send({ type: "subscribe", packetId: 1, subscriptions: [sub("#")], properties: {} });
    await all.next((p) => p.type === "publish" && p.topic.length > 10_000);

    const willing = await connected(port, "willing", { will: { topic: deep(12_000, "w"), payload: new Uint8Array([1]), qos: 0, retain: false, properties: {} } });
    willing.end();
    await all.next((p) => p.type === "publish" && p.topic.startsWith("w/"));
    await roundTrip(bystander);
  });

  it("a stored retained message deeper than the limit is skipped at startup; the other retained messages load", async () => {
    const data = mkdtempSync(join(tmpdir(), "handoff-hostile-data-"));
    dirs.push(data);
    const first = await fx.start(["--storage", "sqlite", "--data-dir", data, "--config", configFile("limits: { maxTopicLevels: 20000 }\n")]);
    const publisher = await connected(first.ports.mqtt ?? 0, "publisher");
    publisher.send({ ...publish(deep(10_000, "x"), true), qos: 1, packetId: 1 } as Packet);
    publisher.send({ ...publish("shallow", true), qos: 1, packetId: 2 } as Packet);
    await publisher.next((p) => p.type === "puback" && p.packetId === 2);
    publisher.end();
    await first.close();
    fx.closed();

    const second = await fx.start(["--storage", "sqlite", "--data-dir", data]);
    const client = await fx.connect(`mqtt://127.0.0.1:${String(second.ports.mqtt ?? 0)}`);
    await client.subscribeAsync("#", { qos: 1 });
    await until(() => collect(client).some((m) => m.topic === "shallow"));
    expect(collect(client).filter((m) => m.retain).map((m) => m.topic)).toEqual(["shallow"]);
    await roundTrip(client);
  });
});

/** Sends one raw HTTP request and returns the status line of the answer. */
function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (b: Buffer) => {
      text += b.toString("latin1");
      if (text.includes("\r\n")) {
        socket.destroy();
        resolve(text.slice(0, text.indexOf("\r\n")));
      }
    });
    socket.on("error", reject);
    socket.on("close", () => {
      resolve(text);
    });
  });
}

describe("the health and metrics port", () => {
  it("answers GET //[ and other unparsable targets with 404 and keeps serving /health and MQTT", async () => {
    const s = await fx.start([]);
    const http = s.ports.http ?? 0;
    for (const target of ["//[", "//[::1", "http://[", "/%ZZ", "//", "*"]) {
      expect(await rawHttp(http, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 (404|400)/);
    }
    expect(await rawHttp(http, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")).toBe("HTTP/1.1 200 OK");
    expect(await rawHttp(http, "GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")).toBe("HTTP/1.1 200 OK");
    await roundTrip(await fx.connect(`mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`));
  });
});

describe("the connection guard", () => {
  it("an error escaping one connection's handler closes that connection only, is counted, and the others keep running", async () => {
    const broker = await startBroker({
      access: {
        ...allowAll,
        canPublish: (identity, topic) => {
          if (topic === "boom") throw new Error(`handler bug triggered by ${identity.clientId}`);
          return true;
        },
        canSubscribe: () => true,
      },
    });
    try {
      const other = await broker.client({ clientId: "other" });
      const viaWs = await broker.client({ clientId: "other-ws", transport: "ws" });
      const thrower = await rawTcp(broker.tcpPort);
      thrower.send(connectPacket("thrower"));
      await thrower.next(is("connack"));
      thrower.send(publish("boom"));
      await thrower.closed;
      expect(broker.broker.counters.handlerErrors).toBe(1);
      await roundTrip(other);
      await roundTrip(viaWs);
      expect(broker.broker.connections).toBe(2);
    } finally {
      await broker.close();
    }
  });
});
