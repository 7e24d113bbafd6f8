/**
 * A {@link Transport} over a byte stream: a TCP or TLS socket (Nagle off, keepalive on), or any
 * other duplex an embedding service hands over (a WebSocket stream, a pipe); one write per tick.
 * @module
 */
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WriteBatch, type ReadingState, type Transport } from "../mqtt/transport.js";

/** Idle time before the first TCP keepalive probe on an accepted socket. */
export const TCP_KEEPALIVE_MS = 60_000;

/** `host:port` of a socket's peer, `?` where unknown. */
export function remoteOf(stream: Duplex): string {
  return stream instanceof Socket ? `${stream.remoteAddress ?? "?"}:${String(stream.remotePort ?? 0)}` : "?";
}

/** Wraps an accepted socket or stream. */
export function socketTransport(socket: Duplex, listener: Transport["listener"], reading: ReadingState = { paused: false }, remote = remoteOf(socket)): Transport {
  if (socket instanceof Socket) {
    socket.setNoDelay(true);
    // A peer that vanished without a FIN (power loss, NAT drop) is found even with keep alive 0.
    socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
  }
  // One write per tick: a fan-out of many small packets to one client costs one buffer and one
  // syscall, not one of each per packet.
  const batch = new WriteBatch((chunks, bytes) => {
    if (socket.destroyed) return;
    socket.write(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, bytes));
  });
  return {
    remote,
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
