/**
 * A {@link Transport} over a byte stream: a TCP or TLS socket (Nagle off, keepalive on), or any
 * other duplex an embedding service hands over (a WebSocket stream, a pipe); one write per tick.
 * @module
 */
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WriteBatch, type ReadingState, type Transport } from "../mqtt/transport.js";
import type { Pausable } from "./paced-reader.js";

/** Idle time before the first TCP keepalive probe on an accepted socket. */
export const TCP_KEEPALIVE_MS = 60_000;

/** `host:port` of a socket's peer, `?` where unknown. */
export function remoteOf(stream: Duplex): string {
  return stream instanceof Socket ? `${stream.remoteAddress ?? "?"}:${String(stream.remotePort ?? 0)}` : "?";
}

/**
 * An accepted socket or stream as a {@link Transport}, and as the {@link Pausable} source of its
 * paced input. A class, not an object of closures: one per connected client.
 */
export class SocketTransport implements Transport, Pausable {
  readonly remote: string;
  readonly listener: Transport["listener"];
  readonly #socket: Duplex;
  readonly #reading: ReadingState;
  // One write per tick: a fan-out of many small packets to one client costs one buffer and one
  // syscall, not one of each per packet.
  readonly #batch: WriteBatch;

  constructor(socket: Duplex, listener: Transport["listener"], remote = remoteOf(socket)) {
    if (socket instanceof Socket) {
      socket.setNoDelay(true);
      // A peer that vanished without a FIN (power loss, NAT drop) is found even with keep alive 0.
      socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
    }
    this.remote = remote;
    this.listener = listener;
    this.#socket = socket;
    this.#reading = { paused: false };
    this.#batch = new WriteBatch((chunks, bytes) => {
      if (socket.destroyed) return;
      socket.write(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, bytes));
    });
  }

  write(bytes: Uint8Array): void {
    this.#batch.push(bytes);
  }

  get buffered(): number {
    return this.#socket.writableLength + this.#batch.pending;
  }

  pauseReading(): void {
    this.#reading.paused = true;
    this.#socket.pause();
  }

  resumeReading(): void {
    this.#reading.paused = false;
    this.#socket.resume();
  }

  close(): void {
    this.#batch.flushNow();
    this.#socket.end();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  /** Paced input: stops the stream while a backlog remains. */
  pause(): void {
    this.#socket.pause();
  }

  /** Paced input: restarts the stream, unless flow control paused it. */
  resume(): void {
    if (!this.#reading.paused) this.#socket.resume();
  }

  get destroyed(): boolean {
    return this.#socket.destroyed;
  }
}
