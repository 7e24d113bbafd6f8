// Broker fuzz (issue 17, item 4): thousands of random, mutated, truncated and coalesced MQTT
// streams sent to a real broker over real TCP and WebSocket connections, and random HTTP requests
// to its health/metrics/admin port. Nothing may crash it, throw out of a connection's handler or
// answer 500; afterwards /health is fine and a bystander MQTT.js client completes a round trip.
import { connect as tcpConnect } from "node:net";
import { type ProtocolVersion } from "@handoff/mqtt-router";
import { encodePacket, type Packet } from "@handoff/mqtt-router/codec";
// The codec's own arbitraries of valid packets (workspace-only test helpers, not the package's API).
import { anyPacket, connectPacket, publishPacket } from "@handoff/mqtt-router/testing";
import { chunked, concat, mutated } from "@handoff/test-kit";
import fc from "fast-check";
import { WebSocket } from "ws";
import { describe, expect, it } from "vitest";
import { roundTrip } from "./bystander.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();

/** Client ids shared by many streams, so streams take over, resume and clean each other's sessions. */
const POOL = Array.from({ length: 8 }, (_, i) => `fuzz-${String(i)}`);
const ADMIN_TOKEN = "fuzz-admin-token-0123456789";

function encoded(packet: Packet, version: ProtocolVersion): Uint8Array {
  const r = encodePacket(packet, { protocolVersion: version });
  if (!r.ok) throw r.error; // the arbitraries make only encodable packets
  return r.bytes;
}

/** Fixed headers that announce what never comes, or cannot be: huge, malformed, reserved. */
const hostileHeaders: readonly Uint8Array[] = [
  Uint8Array.of(0x30, 0xff, 0xff, 0xff, 0x7f), // PUBLISH announcing 256 MiB
  Uint8Array.of(0x30, 0xff, 0xff, 0xff, 0xff, 0x01), // a five-byte remaining length
  Uint8Array.of(0x00, 0x00), // reserved type 0
  Uint8Array.of(0xf0, 0x00), // AUTH with no body
  Uint8Array.of(0x82, 0x02, 0x00, 0x01), // SUBSCRIBE with no filter
  Uint8Array.of(0x10, 0x00), // an empty CONNECT
];

/** A valid packet of `version`, encoded: any type, PUBLISHes more often (they are routed). */
function validPiece(version: ProtocolVersion): fc.Arbitrary<Uint8Array> {
  return fc.oneof(anyPacket(version), publishPacket(version, 64)).map((p) => encoded(p, version));
}

/** Anything: valid, mutated, truncated, random bytes, or a hostile fixed header. */
function anyPiece(version: ProtocolVersion): fc.Arbitrary<Uint8Array> {
  const valid = validPiece(version);
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: mutated(valid) },
    { weight: 1, arbitrary: fc.tuple(valid, fc.nat()).map(([bytes, cut]) => bytes.subarray(0, cut % Math.max(1, bytes.length))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 48 }) },
    { weight: 1, arbitrary: fc.constantFrom(...hostileHeaders) },
  );
}

interface Stream {
  readonly transport: "tcp" | "ws";
  readonly chunks: readonly Uint8Array[];
  /** Wait for the broker's first answer (or its close) before hanging up. */
  readonly wait: boolean;
}

// Valid packets first (so most streams get past CONNACK and into sessions, subscriptions,
// routing and takeovers), then a tail of anything, now and then a packet of the other version.
const stream: fc.Arbitrary<Stream> = fc
  .constantFrom<ProtocolVersion>(4, 5)
  .chain((version) =>
    fc.record({
      version: fc.constant(version),
      connect: fc.option(connectPacket(version), { freq: 8, nil: undefined }), // 1 in 8 without
      pooled: fc.option(fc.constantFrom(...POOL), { freq: 2, nil: undefined }), // 1 in 2 pooled
      plain: fc.constantFrom(true, true, true, false),
      valid: fc.array(validPiece(version), { maxLength: 10 }),
      tail: fc.array(fc.oneof({ weight: 4, arbitrary: anyPiece(version) }, { weight: 1, arbitrary: anyPiece(version === 5 ? 4 : 5) }), { maxLength: 2 }),
      transport: fc.constantFrom<"tcp" | "ws">("tcp", "tcp", "tcp", "ws"),
      wait: fc.boolean(),
    }),
  )
  .chain(({ version, connect, pooled, plain, valid, tail, transport, wait }) => {
    const first = connect === undefined ? [] : [encoded(usable(connect, pooled, plain), version)];
    return chunked(concat([...first, ...valid, ...tail]), 20).map((chunks) => ({ transport, chunks, wait }));
  });

/**
 * Most arbitrary MQTT 5 CONNECTs ask for an enhanced authentication method the broker does not
 * offer, and a third of the 3.1.1 ones are MQTT 3.1: refused at once. A plain one is neither.
 */
function usable(connect: Packet, pooled: string | undefined, plain: boolean): Packet {
  if (connect.type !== "connect") return connect;
  const withId = pooled === undefined ? connect : { ...connect, clientId: pooled };
  if (!plain) return withId;
  const { authenticationMethod: _method, authenticationData: _data, ...properties } = withId.properties;
  return { ...withId, protocolVersion: withId.protocolVersion === 5 ? 5 : 4, properties };
}

/** Resolves after `ms`, or when `done` settles, whichever is first. */
function atMost(ms: number, done: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void done.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function sendTcp(port: number, s: Stream): Promise<void> {
  const socket = tcpConnect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  const answered = new Promise<void>((resolve) => {
    socket.once("data", () => {
      resolve();
    });
    socket.once("close", () => {
      resolve();
    });
  });
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  for (const chunk of s.chunks) socket.write(chunk);
  if (s.wait) await atMost(200, answered);
  socket.destroy();
}

async function sendWs(port: number, s: Stream): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/mqtt`, "mqtt");
  ws.on("error", () => undefined);
  const answered = new Promise<void>((resolve) => {
    ws.once("message", () => {
      resolve();
    });
    ws.once("close", () => {
      resolve();
    });
  });
  const opened = await new Promise<boolean>((resolve) => {
    ws.once("open", () => {
      resolve(true);
    });
    ws.once("close", () => {
      resolve(false);
    });
  });
  if (opened) {
    for (const chunk of s.chunks) ws.send(chunk);
    if (s.wait) await atMost(200, answered);
  }
  ws.terminate();
}

// --- HTTP ---

const segment = fc.oneof(
  fc.constantFrom(...POOL, "", "%", "%ZZ", "%2F", "%00", "%E0%A4%A", "..", "[", "x".repeat(300)),
  fc.stringMatching(/^[\x21-\x22\x24-\x3e\x40-\x7e]{0,12}$/), // printable, no ? or #
);
const query = fc.array(
  fc.tuple(fc.constantFrom("limit", "after", "filter", "topic", "x", ""), fc.oneof(segment, fc.integer({ min: -5, max: 100_000 }).map(String))),
  { maxLength: 3 },
);
const target = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom("stats", "clients", "clients/:", "clients/:/kick", "sessions", "sessions/:", "sessions/:/subscriptions", "retained", ":"),
        segment,
        query,
      )
      .map(([route, seg, q]) => `/api/v1/${route.replace(":", seg)}${q.length === 0 ? "" : `?${q.map(([k, v]) => `${k}=${v}`).join("&")}`}`),
  },
  { weight: 1, arbitrary: fc.constantFrom("/health", "/metrics", "/dashboard", "/dashboard/x.js", "*", "//[", "http://[", "/%ZZ", "/api", "/api/v2/stats") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map((s) => s.replace(/[\r\n ]/g, "")) },
);
const printable = (maxLength: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[\\x21-\\x7e]{0,${String(maxLength)}}$`));
const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);
const header = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(headerName, printable(24)).map(([n, v]) => `${n}: ${v}`) },
  { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 24 }).map((s) => s.replace(/[\r\n]/g, "")) },
);
const request = fc
  .record({
    method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "POST", "DELETE", "DELETE", "PUT", "OPTIONS", "G=T", ""),
    target,
    version: fc.constantFrom("HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "FTP/1.1", ""),
    auth: fc.constantFrom(`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, "Bearer wrong-token-0123456789", "Basic eA==", undefined),
    headers: fc.array(header, { maxLength: 3 }),
    cut: fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat() }),
  })
  .map(({ method, target: t, version, auth, headers, cut }) => {
    const text = `${method} ${t} ${version}\r\nHost: fuzz\r\n${auth === undefined ? "" : `Authorization: ${auth}\r\n`}${headers.map((h) => `${h}\r\n`).join("")}\r\n`;
    const bytes = Buffer.from(text, "utf8");
    // A cut request waits for the rest, which never comes: the server is not expected to answer.
    return cut === undefined ? { bytes, complete: true } : { bytes: bytes.subarray(0, cut % bytes.length), complete: false };
  });

/** Sends one raw request; resolves with the status line of the answer, or "" when none came. */
async function sendHttp(port: number, bytes: Uint8Array, waitMs: number): Promise<string> {
  const socket = tcpConnect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  let text = "";
  const answered = new Promise<void>((resolve) => {
    socket.on("data", (b: Buffer) => {
      text += b.toString("latin1");
      if (text.includes("\r\n")) resolve();
    });
    socket.once("close", () => {
      resolve();
    });
  });
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(bytes);
  await atMost(waitMs, answered);
  socket.destroy();
  return text.includes("\r\n") ? text.slice(0, text.indexOf("\r\n")) : "";
}

describe("broker fuzz", () => {
  it("survives thousands of random, mutated, truncated and coalesced MQTT streams and random HTTP requests; a bystander is served after", async () => {
    const s = await fx.start(["--storage", "memory", "--admin-token", ADMIN_TOKEN]);
    const mqttPort = s.ports.mqtt ?? 0;
    const bystander = await fx.connect(`mqtt://127.0.0.1:${String(mqttPort)}`, { clientId: "bystander" });
    const started = performance.now();
    let mqttCases = 0;
    await fc.assert(
      fc.asyncProperty(stream, async (st) => {
        mqttCases += 1;
        await (st.transport === "ws" ? sendWs(s.ports.ws ?? 0, st) : sendTcp(mqttPort, st));
      }),
      { numRuns: 1500 },
    );
    const mqttSeconds = (performance.now() - started) / 1000;
    const { connects, protocolErrors } = s.broker.counters;
    const routed = s.broker.router.stats.published;
    let httpCases = 0;
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ bytes, complete }) => {
        httpCases += 1;
        const status = await sendHttp(s.ports.http ?? 0, bytes, complete ? 2000 : 20);
        const code = /^HTTP\/1\.[01] (\d{3})/.exec(status)?.[1] ?? (status === "" ? "none" : "other");
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
        // A 500 is a handler that threw on what a client sent.
        expect(code).not.toBe("500");
        expect(code).not.toBe("other");
      }),
      { numRuns: 500 },
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `broker fuzz: ${String(mqttCases)} MQTT streams in ${mqttSeconds.toFixed(1)} s (${String(connects)} accepted CONNECTs, ${String(protocolErrors)} protocol errors, ${String(routed)} messages routed), ${String(httpCases)} HTTP requests in ${(seconds - mqttSeconds).toFixed(1)} s; HTTP answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(s.broker.counters.handlerErrors).toBe(0);
    const health = await fetch(`http://127.0.0.1:${String(s.ports.http ?? 0)}/health`);
    expect(health.status).toBe(200);
    await roundTrip(bystander);
  });
});
