/**
 * MQTT over WebSocket (default port 8080, path `/mqtt`, subprotocol `mqtt`), plain or TLS.
 * @module
 */
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { TlsOptions } from "node:tls";
import type { Logger } from "pino";
import { WebSocketServer, type WebSocket } from "ws";
import type { Broker } from "../mqtt/broker.js";
import { WriteBatch, type ReadingState, type Transport } from "../mqtt/transport.js";
import { pacedReader } from "./paced-reader.js";
import { TCP_KEEPALIVE_MS } from "./socket-transport.js";
import { bind, type Listening } from "./tcp.js";

function wsTransport(ws: WebSocket, remote: string, listener: "ws" | "wss", reading: ReadingState): Transport {
  // MQTT over WebSocket may split or join packets across messages; one message per tick is fine.
  const batch = new WriteBatch((chunks, bytes) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, bytes));
  });
  return {
    remote,
    listener,
    write: (bytes) => {
      batch.push(bytes);
    },
    get buffered() {
      return ws.bufferedAmount + batch.pending;
    },
    pauseReading: () => {
      reading.paused = true;
      ws.pause();
    },
    resumeReading: () => {
      reading.paused = false;
      ws.resume();
    },
    close: () => {
      batch.flushNow();
      ws.close();
    },
    destroy: () => {
      ws.terminate();
    },
  };
}

/** Listens for MQTT over WebSocket on `path`; with `tls`, over secure WebSocket. */
export function listenWs(
  broker: Broker,
  log: Logger,
  options: {
    readonly host: string;
    readonly port: number;
    readonly path: string;
    readonly tls?: TlsOptions;
    /** Largest WebSocket message accepted, bytes (the maximum packet size); larger ones close with 1009. */
    readonly maxPayload: number;
  },
): Promise<Listening> {
  const kind = options.tls === undefined ? "ws" : "wss";
  const server = options.tls === undefined ? createHttpServer() : createHttpsServer(options.tls);
  server.on("request", (_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end(`MQTT over WebSocket: connect to ${options.path}\n`);
  });
  const wss = new WebSocketServer({
    server,
    path: options.path,
    // Accept the `mqtt` subprotocol when offered (MQTT.js and browsers offer it) [MQTT-6.0.0-3].
    handleProtocols: (protocols) => (protocols.has("mqtt") ? "mqtt" : protocols.has("mqttv3.1") ? "mqttv3.1" : false),
    perMessageDeflate: false,
    // ws's default is 100 MiB: a message may hold at most one whole maximum-size packet.
    maxPayload: options.maxPayload,
  });
  wss.on("connection", (ws, req) => {
    const remote = `${req.socket.remoteAddress ?? "?"}:${String(req.socket.remotePort ?? 0)}`;
    req.socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
    const reading: ReadingState = { paused: false };
    const events = broker.attach(wsTransport(ws, remote, kind, reading));
    if (events === undefined) return;
    // Paced like TCP: one message can hold a hundred thousand packets.
    const reader = pacedReader(
      {
        pause: () => {
          ws.pause();
        },
        resume: () => {
          if (!reading.paused) ws.resume(); // not while flow control holds it
        },
        get destroyed() {
          return ws.readyState === ws.CLOSED;
        },
      },
      (slice) => {
        events.data(slice);
      },
    );
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
      const chunks = Array.isArray(data) ? data : [Buffer.isBuffer(data) ? data : Buffer.from(data)];
      for (const chunk of chunks) reader(chunk);
    });
    ws.on("error", (err) => {
      log.debug({ err, remote }, "websocket error");
    });
    ws.on("close", () => {
      events.closed();
    });
  });
  return bind(server, options.host, options.port, kind).then((listening) => ({
    ...listening,
    close: async (graceMs?: number) => {
      wss.close();
      await listening.close(graceMs);
    },
  }));
}
