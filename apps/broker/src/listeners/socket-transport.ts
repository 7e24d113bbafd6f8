/**
 * A {@link Transport} over a TCP or TLS socket: Nagle off, one write per tick.
 * @module
 */
import type { Socket } from "node:net";
import { WriteBatch, type Transport } from "../mqtt/transport.js";

/** Wraps an accepted socket. */
export function socketTransport(socket: Socket, listener: "tcp" | "tls"): Transport {
  socket.setNoDelay(true);
  const batch = new WriteBatch((chunks) => {
    if (socket.destroyed) return;
    socket.cork();
    for (const chunk of chunks) socket.write(chunk);
    socket.uncork();
  });
  return {
    remote: `${socket.remoteAddress ?? "?"}:${String(socket.remotePort ?? 0)}`,
    listener,
    write: (bytes) => {
      batch.push(bytes);
    },
    get buffered() {
      return socket.writableLength + batch.pending;
    },
    close: () => {
      batch.flushNow();
      socket.end();
    },
    destroy: () => {
      socket.destroy();
    },
  };
}
