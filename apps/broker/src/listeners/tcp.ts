/**
 * MQTT over TCP (default port 1883) and TLS (default 8883).
 * @module
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Logger } from "pino";
import type { Broker } from "../mqtt/broker.js";
import { attachStream } from "./attach-stream.js";

/** A bound listener. */
export interface Listening {
  readonly kind: "tcp" | "tls" | "ws" | "wss";
  readonly address: AddressInfo;
  /**
   * Stops accepting and resolves once every connection is gone; open connections are the
   * broker's to close. After `graceMs` (default: no deadline) the sockets still open are
   * destroyed: a peer that never reads nor closes (or never finishes a TLS or WebSocket
   * handshake) cannot hold the shutdown open.
   */
  close(graceMs?: number): Promise<void>;
}

function serve(server: Server, kind: "tcp" | "tls", broker: Broker, log: Logger): void {
  server.on(kind === "tls" ? "secureConnection" : "connection", (socket: Socket) => {
    attachStream(broker, log, socket, kind);
  });
  server.on("tlsClientError", (err: Error) => {
    log.info({ err: err.message }, "TLS handshake failed");
  });
}

/** Binds `server` and resolves with its address. */
export function bind(server: Server, host: string, port: number, kind: Listening["kind"]): Promise<Listening> {
  // Every accepted socket, handshakes under way included, so a shutdown deadline can cut them.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      if (address === null || typeof address === "string") {
        reject(new Error(`${kind} listener has no TCP address`));
        return;
      }
      resolve({
        kind,
        address,
        close: (graceMs = Number.POSITIVE_INFINITY) =>
          new Promise<void>((done) => {
            const deadline = Number.isFinite(graceMs)
              ? setTimeout(() => {
                  for (const socket of sockets) socket.destroy();
                }, graceMs)
              : undefined;
            server.close(() => {
              clearTimeout(deadline);
              done();
            });
          }),
      });
    });
  });
}

/** Listens for MQTT over plain TCP. */
export function listenTcp(broker: Broker, log: Logger, host: string, port: number): Promise<Listening> {
  const server = createServer();
  serve(server, "tcp", broker, log);
  return bind(server, host, port, "tcp");
}

/** Listens for MQTT over TLS; `tls` carries cert, key and optional client-certificate settings. */
export function listenTls(broker: Broker, log: Logger, host: string, port: number, tls: TlsOptions): Promise<Listening> {
  const server = createTlsServer(tls);
  serve(server, "tls", broker, log);
  return bind(server, host, port, "tls");
}
