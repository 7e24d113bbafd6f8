import type { Socket } from "node:net";
import type { RawData, WebSocket } from "ws";
import { type LiteSession, RelayCode } from "@handoff/moq-relay";
import { guardOf, type Carrier } from "./attach.js";
import { corkPerTick } from "./cork.js";

/** Bytes a socket may hold unsent before its peer is dropped as not reading (16 MiB). */
export const MAX_SOCKET_BUFFER = 16 << 20;

/** How often a WebSocket is pinged (its pong is the session's liveness). */
const PING_MS = 5000;

/** A carrier over a byte-stream socket (TCP, TLS): writes batched per tick; a peer that stops reading is dropped. */
export function streamCarrier(socket: Socket): Carrier {
  const cork = corkPerTick(socket);
  return {
    send: (bytes) => {
      if (socket.destroyed) return;
      if (socket.writableLength > MAX_SOCKET_BUFFER) {
        socket.destroy();
        return;
      }
      cork();
      socket.write(bytes);
    },
    end: () => {
      socket.end();
    },
    destroy: () => {
      socket.destroy();
    },
  };
}

/** Feeds a byte-stream socket to `session`; the session closes with the socket (then `onClose`). */
export function bindStream(socket: Socket, session: LiteSession, onClose?: () => void): void {
  const guard = guardOf(session);
  socket.on(
    "data",
    guard("receive", (chunk: Buffer) => {
      session.receive(chunk);
    }),
  );
  socket.on(
    "close",
    guard("close", () => {
      onClose?.();
      session.close(RelayCode.Cancel, "socket closed");
    }),
  );
  socket.on("error", () => {
    socket.destroy();
  });
}

/** The options of every send: one object, not one per message. */
const BINARY = { binary: true } as const;

/**
 * A carrier over a WebSocket. `cork` (of the server's underlying socket) batches a tick's
 * messages into one write. The legacy framing has no flow control, so a peer that stops reading
 * is dropped rather than growing the send buffer without bound.
 */
export function webSocketCarrier(ws: WebSocket, cork?: () => void): Carrier {
  return {
    send: (bytes) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_SOCKET_BUFFER) {
        ws.terminate();
        return;
      }
      cork?.();
      ws.send(bytes, BINARY);
    },
    end: () => {
      ws.close();
    },
    destroy: () => {
      ws.terminate();
    },
  };
}

/** Feeds a WebSocket to `session`, pings it every 5 s, and closes the session with the socket. */
export function bindWebSocket(ws: WebSocket, session: LiteSession): void {
  const guard = guardOf(session);
  ws.on(
    "message",
    guard("receive", (data: RawData) => {
      session.receive(toBytes(data));
    }),
  );
  ws.on(
    "pong",
    guard("pong", () => {
      session.touch();
    }),
  );
  const ping = setInterval(() => {
    if (ws.readyState === ws.OPEN) ws.ping();
  }, PING_MS);
  ping.unref();
  ws.on(
    "close",
    guard("close", () => {
      clearInterval(ping);
      session.close(RelayCode.Cancel, "socket closed");
    }),
  );
  ws.on("error", () => {
    ws.terminate();
  });
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
