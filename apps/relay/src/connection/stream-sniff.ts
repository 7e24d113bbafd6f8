import type { Socket } from "node:net";
import { concatBytes, sniffStreamQmux } from "@handoff/qmux";

/** What a plain-TCP peer's first bytes said: its qmux wire (with every byte read so far), or why it is not one. */
export type SocketSniff =
  | { readonly kind: "qmux-00" | "records"; readonly bytes: Uint8Array }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "closed" };

/** Default wait for a plain-TCP peer's first bytes, as qmux's own handshake timeout (ms). */
export const DEFAULT_SNIFF_TIMEOUT_MS = 10_000;

/**
 * Reads a socket until its first bytes tell the peer's qmux wire (plain TCP has no ALPN), then
 * calls `done` once and lets go of the socket: the caller binds its session in the same turn and
 * feeds it `bytes` first. Garbage is refused at its first wrong byte; a peer that stays short of
 * an answer (a slowloris) is refused after `timeoutMs`. The socket is left to the caller.
 */
export function sniffSocket(socket: Socket, timeoutMs: number, done: (sniff: SocketSniff) => void): void {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const finish = (sniff: SocketSniff): void => {
    clearTimeout(timer);
    socket.off("data", onData);
    socket.off("close", onClose);
    socket.off("error", onError);
    done(sniff);
  };
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    length += chunk.length;
    const bytes = chunks.length === 1 ? chunk : concatBytes(chunks, length);
    const sniff = sniffStreamQmux(bytes);
    if (sniff.kind === "short") return;
    finish(sniff.kind === "not-qmux" ? { kind: "refused", reason: sniff.reason } : { kind: sniff.kind, bytes });
  };
  const onClose = (): void => {
    finish({ kind: "closed" });
  };
  // A reset before the answer: the close that follows reports it.
  const onError = (): void => {
    socket.destroy();
  };
  const timer = setTimeout(() => {
    finish({ kind: "refused", reason: `no qmux transport parameters within ${String(timeoutMs)} ms (${String(length)} bytes)` });
  }, timeoutMs);
  timer.unref();
  socket.on("data", onData);
  socket.once("close", onClose);
  socket.on("error", onError);
}
