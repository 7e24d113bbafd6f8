import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import type { Logger } from "pino";

/** Where the broker listens. */
export interface ListenerOptions {
  /** Interface to bind; `0.0.0.0` for all IPv4 interfaces. */
  readonly host: string;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
}

/** A bound MQTT TCP listener. */
export interface Listener {
  /** The address actually bound (with the chosen port when 0 was asked for). */
  readonly address: AddressInfo;
  /** Stops accepting, ends every open connection and resolves once all are gone. */
  close(): Promise<void>;
}

/**
 * Binds the MQTT TCP listener. Until the protocol core lands, a connection is accepted, logged and
 * closed at once, so a client fails fast instead of hanging on a CONNACK that never comes.
 */
export async function listen(options: ListenerOptions, log: Logger): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", (err) => {
      log.debug({ err }, "socket error");
    });
    log.info({ remote: `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? 0}` }, "connection closed: MQTT not served yet");
    socket.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("listener has no TCP address");
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
