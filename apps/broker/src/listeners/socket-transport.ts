/**
 * A {@link Transport} over a TCP or TLS socket: Nagle off, one write per tick.
 * @module
 */
import type { Socket } from "node:net";
import { WriteBatch, type ReadingState, type Transport } from "../mqtt/transport.js";

/** Idle time before the first TCP keepalive probe on an accepted socket. */
export const TCP_KEEPALIVE_MS = 60_000;

/** Wraps an accepted socket. */
export function socketTransport(socket: Socket, listener: "tcp" | "tls", reading: ReadingState = { paused: false }): Transport {
  socket.setNoDelay(true);
  // A peer that vanished without a FIN (power loss, NAT drop) is found even with keep alive 0.
  socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
  // One write per tick: a fan-out of many small packets to one client costs one buffer and one
  // syscall, not one of each per packet.
  const batch = new WriteBatch((chunks, bytes) => {
    if (socket.destroyed) return;
    socket.write(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, bytes));
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
    pauseReading: () => {
      reading.paused = true;
      socket.pause();
    },
    resumeReading: () => {
      reading.paused = false;
      socket.resume();
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
