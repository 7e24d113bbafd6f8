/**
 * MQTT over TCP (default port 1883) and TLS (default 8883).
 * @module
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Logger } from "pino";
import type { Broker } from "../mqtt/broker.js";
import { socketTransport } from "./socket-transport.js";

/** A bound listener. */
export interface Listening {
  readonly kind: "tcp" | "tls" | "ws" | "wss";
  readonly address: AddressInfo;
  /** Stops accepting; open connections are the broker's to close. */
  close(): Promise<void>;
}

function serve(server: Server, kind: "tcp" | "tls", broker: Broker, log: Logger): void {
  const accept = (socket: Socket): void => {
    const transport = socketTransport(socket, kind);
    const events = broker.attach(transport);
    if (events === undefined) return;
    const reader = pacedReader(socket, (slice) => {
      events.data(slice);
    });
    socket.on("data", reader);
    socket.on("error", (err) => {
      log.debug({ err, remote: transport.remote }, "socket error");
    });
    socket.on("close", () => {
      events.closed();
    });
  };
  server.on(kind === "tls" ? "secureConnection" : "connection", accept);
  server.on("tlsClientError", (err: Error) => {
    log.info({ err: err.message }, "TLS handshake failed");
  });
}

/** Bytes handed to the protocol per event-loop turn, per connection. */
const SLICE_BYTES = 4096;

/**
 * Feeds a socket's data to `deliver` at most {@link SLICE_BYTES} per event-loop turn, pausing the
 * socket while a backlog remains. A 64 KiB read of small PUBLISHes fanned out to a thousand
 * subscribers is close to a million deliveries; taken in one go it would starve every other
 * connection (no CONNACK for anyone) and pile up output. Paced, the flooding publisher is slowed
 * by TCP itself while the rest of the broker keeps turning.
 */
function pacedReader(socket: Socket, deliver: (slice: Uint8Array) => void): (chunk: Buffer) => void {
  let backlog: Buffer | undefined;
  const step = (): void => {
    if (backlog === undefined || socket.destroyed) return;
    const slice = backlog.subarray(0, SLICE_BYTES);
    backlog = backlog.length > SLICE_BYTES ? backlog.subarray(SLICE_BYTES) : undefined;
    deliver(slice);
    if (backlog !== undefined) setImmediate(step);
    else socket.resume();
  };
  return (chunk) => {
    if (chunk.length <= SLICE_BYTES && backlog === undefined) {
      deliver(chunk);
      return;
    }
    backlog = backlog === undefined ? chunk : Buffer.concat([backlog, chunk]);
    socket.pause();
    step();
  };
}

/** Binds `server` and resolves with its address. */
export function bind(server: Server, host: string, port: number, kind: Listening["kind"]): Promise<Listening> {
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
        close: () =>
          new Promise<void>((done) => {
            server.close(() => {
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
