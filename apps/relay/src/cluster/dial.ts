import { connect as tcpConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { LITE_04 } from "@handoff/moq-resume/lite";
import { WebSocket, type RawData } from "ws";
import { ALLOW_ALL } from "../auth/permissions.js";
import { attachSession, type AttachContext, type AttachOptions } from "../server/attach.js";
import { corkPerTick } from "../server/cork.js";
import { RelayCode } from "../session/limits.js";
import type { LiteSession } from "../session/session.js";
import { createFraming } from "../transport/index.js";
import type { PeerAddress } from "./peer-url.js";

/** The version cluster links speak: the first with GOAWAY. */
export const LINK_ALPN = "moq-lite-04";

/** Bytes a link socket may hold unsent before the link is dropped (as for accepted sockets). */
const MAX_SOCKET_BUFFER = 16 << 20;

/** What a dial needs besides the address. */
export interface DialOptions {
  /** Give up when the connection is not up by then (ms). */
  readonly timeoutMs: number;
  readonly onGoaway: NonNullable<AttachOptions["onGoaway"]>;
  readonly onClosed: NonNullable<AttachOptions["onClosed"]>;
  /** Extra log fields for the session. */
  readonly logFields: Readonly<Record<string, unknown>>;
  /** Certificates to trust for `tls://` and `wss://` peers besides the system's (PEM). */
  readonly ca: string | Buffer | undefined;
}

/** A dial in progress: the session once connected, and how to give up on it. */
export interface Dial {
  readonly session: Promise<LiteSession>;
  /** Abandons the dial (or closes the socket if it already connected). */
  abort(): void;
}

/** A dial that did not produce a session. */
export class DialError extends Error {
  override readonly name = "DialError";
}

/**
 * Dials a peer relay and runs a moq-lite session over the link (lite-04, qmux framing), as the
 * client end: every path is allowed both ways (the operator configured the peer), and routes
 * learnt from it carry the link cost.
 */
export function dialPeer(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  return address.transport === "tcp" ? dialTcp(ctx, address, options) : dialWs(ctx, address, options);
}

function attachOptions(address: PeerAddress, options: DialOptions, remote: string) {
  return {
    root: address.path,
    permissions: ALLOW_ALL,
    expiresAt: undefined,
    remote,
    cost: address.cost,
    logFields: { ...options.logFields, peer: address.url },
    onGoaway: options.onGoaway,
    onClosed: options.onClosed,
  } as const;
}

function dialTcp(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  const socket: Socket = address.secure
    ? tlsConnect({
        host: address.host,
        port: address.port,
        ALPNProtocols: [LINK_ALPN],
        // SNI takes a host name only.
        ...(isIP(address.host) === 0 ? { servername: address.host } : {}),
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      })
    : tcpConnect({ host: address.host, port: address.port });
  let settled = false;
  const session = new Promise<LiteSession>((resolve, reject) => {
    const timer = setTimeout(() => {
      fail(new DialError(`dial ${address.url}: no connection after ${String(options.timeoutMs)} ms`));
    }, options.timeoutMs);
    function fail(err: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    }
    socket.once("error", (err) => {
      fail(new DialError(`dial ${address.url}: ${err.message}`));
    });
    socket.once("close", () => {
      fail(new DialError(`dial ${address.url}: closed`));
    });
    socket.once(address.secure ? "secureConnect" : "connect", () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.setNoDelay(true);
      const framing = createFraming("qmux-00", {
        role: "client",
        carrier: "stream",
        autoConsume: true,
        params: { applicationProtocols: [LINK_ALPN] },
      });
      const cork = corkPerTick(socket);
      const s = attachSession(
        ctx,
        {
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
        },
        {
          framing,
          mode: { kind: "transport" },
          transport: "tcp",
          ...attachOptions(address, options, `${address.host}:${String(address.port)}`),
        },
      );
      socket.on("data", (chunk: Buffer) => {
        s.receive(chunk);
      });
      socket.on("close", () => {
        s.close(RelayCode.Cancel, "socket closed");
      });
      socket.on("error", () => {
        socket.destroy();
      });
      resolve(s);
    });
  });
  return {
    session,
    abort: () => {
      socket.destroy();
    },
  };
}

function dialWs(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  const url = `${address.secure ? "wss" : "ws"}://${host}:${String(address.port)}${address.path === "" ? "/" : address.path}${address.search}`;
  const ws = new WebSocket(url, [`qmux-00.${LINK_ALPN}`], {
    maxPayload: 1 << 20,
    handshakeTimeout: options.timeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  let settled = false;
  const session = new Promise<LiteSession>((resolve, reject) => {
    const timer = setTimeout(() => {
      fail(new DialError(`dial ${address.url}: no connection after ${String(options.timeoutMs)} ms`));
    }, options.timeoutMs);
    function fail(err: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    }
    ws.once("error", (err) => {
      fail(new DialError(`dial ${address.url}: ${err.message}`));
    });
    ws.once("close", () => {
      fail(new DialError(`dial ${address.url}: closed`));
    });
    ws.once("open", () => {
      if (settled) return;
      if (ws.protocol !== `qmux-00.${LINK_ALPN}`) {
        fail(new DialError(`dial ${address.url}: the peer did not accept qmux-00.${LINK_ALPN}`));
        return;
      }
      settled = true;
      clearTimeout(timer);
      const framing = createFraming("qmux-00", { role: "client", autoConsume: true });
      const s = attachSession(
        ctx,
        {
          send: (bytes) => {
            if (ws.readyState !== ws.OPEN) return;
            if (ws.bufferedAmount > MAX_SOCKET_BUFFER) {
              ws.terminate();
              return;
            }
            ws.send(bytes, { binary: true });
          },
          end: () => {
            ws.close();
          },
        },
        {
          framing,
          mode: { kind: "fixed", version: LITE_04 },
          transport: "ws",
          ...attachOptions(address, options, url),
        },
      );
      ws.on("message", (data: RawData) => {
        s.receive(Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data);
      });
      ws.on("pong", () => {
        s.touch();
      });
      const ping = setInterval(() => {
        if (ws.readyState === ws.OPEN) ws.ping();
      }, 5000);
      ping.unref();
      ws.on("error", () => {
        ws.terminate();
      });
      ws.on("close", () => {
        clearInterval(ping);
        s.close(RelayCode.Cancel, "socket closed");
      });
      resolve(s);
    });
  });
  return {
    session,
    abort: () => {
      ws.terminate();
    },
  };
}
