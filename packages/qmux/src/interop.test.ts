// Interop with the real client library: @moq/qmux 0.0.6 (what @moq/lite 0.2.2 uses
// for WebSocket) against our server-role framing over a real `ws` server.
import { realpathSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { installWithResolvers } from "@handoff/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import type { FramingEvent } from "./events.js";
import { createFraming, negotiateSubprotocol, type FramingSession } from "./index.js";

/** The part of @moq/qmux's Session (a WebTransport polyfill) this test drives. */
interface QmuxSession {
  readonly ready: Promise<void>;
  readonly closed: Promise<unknown>;
  readonly protocol: string;
  readonly incomingUnidirectionalStreams: ReadableStream<ReadableStream<Uint8Array>>;
  createBidirectionalStream(): Promise<{ readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> }>;
  close(info?: { closeCode?: number; reason?: string }): void;
}
type QmuxConstructor = new (url: string, options?: { protocols?: string[] }) => QmuxSession;

const DEADLINE_MS = 8_000;

async function loadQmux(): Promise<QmuxConstructor> {
  // @moq/qmux is a dependency of @moq/lite (not of this package); pnpm puts it beside it.
  const lite = realpathSync(join(dirname(fileURLToPath(import.meta.url)), "../node_modules/@moq/lite"));
  const mod: unknown = await import(pathToFileURL(join(lite, "..", "qmux", "index.js")).href);
  if (typeof mod !== "object" || mod === null || !("default" in mod) || typeof mod.default !== "function") {
    throw new Error("unexpected @moq/qmux module shape");
  }
  return mod.default as QmuxConstructor;
}

function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`timed out: ${what}`));
    }, DEADLINE_MS);
  });
  return Promise.race([promise, deadline]).finally(() => {
    clearTimeout(timer);
  });
}

async function readAll(readable: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(parts);
    parts.push(value);
  }
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** One accepted connection: our framing plus everything it reported. */
interface ServerConn {
  readonly framing: FramingSession;
  readonly events: FramingEvent[];
  readonly subprotocol: string;
  readonly firstMessage: Promise<Uint8Array>;
  /** Puts what the framing queued on the socket (after calls made outside a message handler). */
  readonly flush: () => void;
}

let Qmux: QmuxConstructor;
let server: WebSocketServer;
let port = 0;
let forceLegacy = false;
const conns: ServerConn[] = [];
const saved = { WebSocket: Reflect.get(globalThis, "WebSocket") as unknown };
let uninstallWithResolvers = (): void => undefined;

beforeAll(async () => {
  // Node 20 has neither a global WebSocket nor Promise.withResolvers; @moq/qmux needs both.
  Reflect.set(globalThis, "WebSocket", WebSocket);
  uninstallWithResolvers = installWithResolvers();
  Qmux = await loadQmux();
  server = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    handleProtocols: (offered) => {
      if (forceLegacy) return offered.has("webtransport") ? "webtransport" : false;
      const choice = negotiateSubprotocol(offered);
      return choice.ok && choice.subprotocol !== undefined ? choice.subprotocol : false;
    },
  });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
  server.on("connection", (ws) => {
    const choice = negotiateSubprotocol(ws.protocol === "" ? undefined : ws.protocol);
    if (!choice.ok) throw new Error(choice.reason);
    const framing = createFraming(choice.framing, { role: "server" });
    const events: FramingEvent[] = [];
    let first: (bytes: Uint8Array) => void = () => undefined;
    const firstMessage = new Promise<Uint8Array>((resolve) => (first = resolve));
    conns.push({ framing, events, subprotocol: ws.protocol, firstMessage, flush: () => { flush(); } });
    const flush = (): void => {
      // Handling an event may queue more (the echo writes), so drain until quiet.
      for (let batch = framing.poll(); batch.length > 0; batch = framing.poll()) flushBatch(batch);
    };
    const flushBatch = (batch: readonly FramingEvent[]): void => {
      for (const event of batch) {
        if (event.kind === "send") {
          ws.send(event.bytes);
          continue;
        }
        events.push(event);
        // Echo every client-opened bidi stream back, releasing credit as we go.
        if (event.kind === "stream-data" && event.streamId % 4 === 0) {
          framing.write(event.streamId, event.bytes, event.fin);
          framing.consume(event.streamId, event.bytes.length);
        }
        if (event.kind === "closed") ws.close();
      }
    };
    ws.on("message", (data) => {
      const bytes = toBytes(data);
      first(bytes);
      framing.receive(bytes);
      flush();
    });
    ws.on("close", () => {
      framing.close(0, "socket closed");
      framing.poll();
    });
    flush();
  });
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
  Reflect.set(globalThis, "WebSocket", saved.WebSocket);
  uninstallWithResolvers();
});

function payload(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 8)) & 0xff);
}

async function echo(session: QmuxSession, data: Uint8Array): Promise<Buffer> {
  const { readable, writable } = await session.createBidirectionalStream();
  const writer = writable.getWriter();
  const reading = readAll(readable);
  await writer.write(data);
  await writer.close();
  return reading;
}

describe("@moq/qmux 0.0.6 against our server framing over ws", () => {
  it("negotiates qmux-00.moq-lite-04 and exchanges transport parameters", async () => {
    const session = new Qmux(`ws://127.0.0.1:${port}/anon`, { protocols: ["moq-lite-04"] });
    try {
      await withDeadline(session.ready, "ready");
      expect(session.protocol).toBe("moq-lite-04");
      const conn = conns.at(-1);
      if (conn === undefined) throw new Error("no server connection");
      expect(conn.subprotocol).toBe("qmux-00.moq-lite-04");
      const first = await withDeadline(conn.firstMessage, "client parameters");
      // The client's first message is QX_TRANSPORT_PARAMETERS (8-byte varint 0x3f5153300d0a0d0a).
      expect([...first.subarray(0, 8)]).toEqual([0xff, 0x51, 0x53, 0x30, 0x0d, 0x0a, 0x0d, 0x0a]);
      await withDeadline(
        (async () => {
          while (conn.framing.peerParams === undefined) await new Promise((r) => setTimeout(r, 5));
        })(),
        "peer params",
      );
      expect(conn.framing.peerParams).toMatchObject({
        initialMaxData: 1_048_576,
        initialMaxStreamDataBidiLocal: 262_144,
        initialMaxStreamsBidi: 100,
        initialMaxStreamsUni: 100,
      });
    } finally {
      session.close({ closeCode: 0, reason: "done" });
    }
  });

  it("echoes 700 kB on a client-opened bidi stream through both flow-control windows", async () => {
    const session = new Qmux(`ws://127.0.0.1:${port}/anon`, { protocols: ["moq-lite-04"] });
    try {
      await withDeadline(session.ready, "ready");
      const data = payload(700_000);
      const back = await withDeadline(echo(session, data), "echo");
      expect(back.length).toBe(data.length);
      expect(back.equals(data)).toBe(true);
    } finally {
      session.close({ closeCode: 0, reason: "done" });
    }
  });

  it("delivers a server-opened uni stream with FIN to the client", async () => {
    const session = new Qmux(`ws://127.0.0.1:${port}/anon`, { protocols: ["moq-lite-04"] });
    try {
      await withDeadline(session.ready, "ready");
      await withDeadline(echo(session, payload(10)), "first echo");
      const conn = conns.at(-1);
      if (conn === undefined) throw new Error("no server connection");
      const open = conn.framing.openStream(false);
      if (!open.ok) throw new Error("open refused");
      conn.framing.write(open.streamId, new TextEncoder().encode("hello"), true);
      conn.flush();
      const reader = session.incomingUnidirectionalStreams.getReader();
      const next = await withDeadline(reader.read(), "incoming uni");
      if (next.done) throw new Error("no incoming stream");
      const text = (await withDeadline(readAll(next.value), "uni data")).toString();
      expect(text).toBe("hello");
    } finally {
      session.close({ closeCode: 0, reason: "done" });
    }
  });

  it("reports the client's close as a peer application close", async () => {
    const session = new Qmux(`ws://127.0.0.1:${port}/anon`, { protocols: ["moq-lite-04"] });
    await withDeadline(session.ready, "ready");
    await withDeadline(echo(session, payload(3)), "echo");
    const conn = conns.at(-1);
    if (conn === undefined) throw new Error("no server connection");
    session.close({ closeCode: 7, reason: "bye" });
    await withDeadline(session.closed, "closed");
    await withDeadline(
      (async () => {
        while (!conn.events.some((e) => e.kind === "closed")) await new Promise((r) => setTimeout(r, 5));
      })(),
      "server closed",
    );
    expect(conn.events.find((e) => e.kind === "closed")).toMatchObject({ kind: "closed", code: 7, byPeer: true, transport: false });
  });

  it("echoes over the legacy webtransport framing when the server picks it", async () => {
    forceLegacy = true;
    const session = new Qmux(`ws://127.0.0.1:${port}/anon`);
    try {
      await withDeadline(session.ready, "ready");
      const conn = conns.at(-1);
      expect(conn?.subprotocol).toBe("webtransport");
      const data = payload(50_000);
      const back = await withDeadline(echo(session, data), "legacy echo");
      expect(back.equals(data)).toBe(true);
    } finally {
      forceLegacy = false;
      session.close({ closeCode: 0, reason: "done" });
    }
  });
});
