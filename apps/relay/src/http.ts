import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Logger } from "pino";

/** Where the relay listens. */
export interface HttpOptions {
  /** Interface to bind; `0.0.0.0` for all IPv4 interfaces. */
  readonly host: string;
  /** Port for WebSocket sessions and HTTP; 0 picks a free one. */
  readonly port: number;
}

/** The relay's bound HTTP/WebSocket port. */
export interface HttpListener {
  /** The address actually bound (with the chosen port when 0 was asked for). */
  readonly address: AddressInfo;
  /** Stops accepting, drops every open connection and resolves once the server is closed. */
  close(): Promise<void>;
}

function respond(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://relay").pathname;
  if (path === "/health") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
    return;
  }
  // moq sessions arrive as WebSocket upgrades on any path; until they are served, plain HTTP
  // gets a clear 404 rather than a hang.
  res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
}

/** Binds the relay's HTTP port: `/health` now, moq-lite over WebSocket once the relay lands. */
export async function listenHttp(options: HttpOptions, log: Logger): Promise<HttpListener> {
  const sockets = new Set<Socket>();
  const server = createServer(respond);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (req: IncomingMessage, socket: Socket) => {
    log.info({ url: req.url }, "upgrade refused: moq sessions not served yet");
    socket.end("HTTP/1.1 501 Not Implemented\r\nConnection: close\r\n\r\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("HTTP listener has no TCP address");
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
