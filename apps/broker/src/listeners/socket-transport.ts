/**
 * A {@link Transport} over a TCP or TLS socket: Nagle off, one write per tick.
 * @module
 */
import type { Socket } from "node:net";
import { WriteBatch, type ReadingState, type Transport } from "../mqtt/transport.js";

/** Wraps an accepted socket. */
export function socketTransport(socket: Socket, listener: "tcp" | "tls", reading: ReadingState = { paused: false }): Transport {
  socket.setNoDelay(true);
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
