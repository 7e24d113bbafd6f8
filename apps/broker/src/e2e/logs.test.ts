// The info-level log lines a mosquitto user looks for, from real clients over loopback.
import { connect } from "node:net";
import { ReasonCode } from "@handoff/mqtt-router";
import mqtt from "mqtt";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll, type AccessControl } from "../auth/access.js";
import { startBroker, until, type Harness } from "./harness.test-helpers.js";

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const INFO = 30;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function capture(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log = pino({ level: "info" }, { write: (text: string) => lines.push(JSON.parse(text) as Line) });
  return { log, lines };
}

const refuseBob: AccessControl = {
  ...allowAll,
  authenticate: (request) =>
    request.username === "bob" ? { ok: false, reasonCode: ReasonCode.BadUserNameOrPassword, reason: "wrong password" } : allowAll.authenticate(request),
};

describe("info logs", () => {
  it("say who connected (id, address, protocol, clean start, keep alive) and why they left", async () => {
    const { log, lines } = capture();
    h = await startBroker({ log });
    const client = await h.client({ clientId: "logged", protocolVersion: 4, clean: false, keepalive: 30 });
    await client.endAsync();
    await until(() => lines.some((l) => l.msg === "client disconnected"));
    const connected = lines.find((l) => l.msg === "client connected");
    expect(connected).toMatchObject({ level: INFO, clientId: "logged", protocol: "MQTT 3.1.1", cleanStart: false, keepAlive: 30, listener: "tcp" });
    expect(connected?.["remote"]).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(lines.find((l) => l.msg === "client disconnected")).toMatchObject({ level: INFO, clientId: "logged", cause: "client-disconnect" });
  });

  it("name a protocol error and a refused authentication, and keep per-message lines at debug", async () => {
    const { log, lines } = capture();
    h = await startBroker({ log, access: refuseBob });
    const refused = mqtt.connect(`mqtt://127.0.0.1:${String(h.tcpPort)}`, { clientId: "b", username: "bob", password: "x", reconnectPeriod: 0, protocolVersion: 5 });
    const error = await new Promise((resolve) => refused.once("error", resolve));
    refused.end(true);
    expect(error).toMatchObject({ code: 0x86 });
    const raw = connect(h.tcpPort, "127.0.0.1");
    const bytes: Buffer[] = [];
    raw.on("data", (b: Buffer) => bytes.push(b));
    raw.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => raw.on("close", () => { resolve(); }));
    raw.write(Buffer.from("101000044d5154540502003c000003726177", "hex")); // CONNECT "raw"
    await until(() => bytes.length > 0, 3000, "CONNACK");
    raw.write(Buffer.from("3003000574", "hex")); // a PUBLISH whose topic runs past its body
    await closed;
    await until(() => lines.some((l) => l.msg === "protocol error"));
    expect(lines.find((l) => l.msg === "connect refused")).toMatchObject({ level: INFO, clientId: "b", username: "bob", reasonCode: 0x86 });
    expect(lines.find((l) => l.msg === "protocol error")).toMatchObject({ level: INFO, clientId: "raw", cause: "protocol-error" });
    const pub = await h.client({ clientId: "pub" });
    await pub.publishAsync("t", "x", { qos: 1 });
    expect(lines.filter((l) => l.level < INFO)).toEqual([]);
  });
});
