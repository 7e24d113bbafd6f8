import { connect as tcpConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { WebSocket } from "ws";
import { ALLOW_ALL, type LiteSession, versionMode } from "@handoff/moq-relay";
import { attachSession, type AttachContext, type AttachOptions } from "../connection/attach.js";
import { bindStream, bindWebSocket, streamCarrier, webSocketCarrier } from "../connection/carriers.js";
import { createFraming, negotiateSubprotocol, negotiateTlsAlpn, supportedSubprotocols, TCP_MOQ_ALPNS, tlsAlpns, type QmuxVersion } from "@handoff/qmux";
import { sniffSocket } from "../connection/stream-sniff.js";
import type { PeerAddress } from "./peer-url.js";

/**
 * The versions a cluster link offers, newest first, so a link speaks the newest version both
 * relays support; lite-04 (the first with GOAWAY) is the oldest a link takes.
 */
export const LINK_ALPNS: readonly string[] = TCP_MOQ_ALPNS.filter((alpn) => alpn !== "moq-lite-03");

/** The WebSocket subprotocols a link offers: every qmux version for each of {@link LINK_ALPNS}. */
const LINK_SUBPROTOCOLS = supportedSubprotocols(LINK_ALPNS).filter((p) => p.includes("."));

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
 * Dials a peer relay and runs a moq-lite session over the link (lite-04+, qmux framing), as the
 * client end: every path is allowed both ways (the operator configured the peer), and routes
 * learnt from it carry the link cost.
 */
export function dialPeer(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  if (address.transport === "ws") return dialWs(ctx, address, options);
  return address.secure ? dialTcp(ctx, address, options) : dialPlainTcp(ctx, address, options);
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

/**
 * The outcome of a dial, settled once: resolved with the session, or rejected on an error, a close
 * or the deadline (which also runs `abort`).
 */
function outcome(address: PeerAddress, timeoutMs: number, abort: () => void) {
  let settled = false;
  let resolve: (session: LiteSession) => void = () => undefined;
  let reject: (err: Error) => void = () => undefined;
  const session = new Promise<LiteSession>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const timer = setTimeout(() => {
    fail(`no connection after ${String(timeoutMs)} ms`);
  }, timeoutMs);
  function fail(reason: string): void {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    abort();
    reject(new DialError(`dial ${address.url}: ${reason}`));
  }
  return {
    session,
    fail,
    /** Claims the connection; false when the dial already failed. */
    claim(): boolean {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    },
    resolve: (s: LiteSession) => {
      resolve(s);
    },
  };
}

function dialTcp(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  const socket: Socket = tlsConnect({
    host: address.host,
    port: address.port,
    // qmux-02/01 first for each moq version; the bare ALPN (qmux-00) still links to older relays.
    ALPNProtocols: tlsAlpns(LINK_ALPNS),
    // SNI takes a host name only.
    ...(isIP(address.host) === 0 ? { servername: address.host } : {}),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const result = outcome(address, options.timeoutMs, () => socket.destroy());
  socket.once("error", (err) => {
    result.fail(err.message);
  });
  socket.once("close", () => {
    result.fail("closed");
  });
  socket.once("secureConnect", () => {
    if (!result.claim()) return;
    socket.setNoDelay(true);
    // The ALPN the peer chose fixes both versions; without one it is qmux-00 and the moq version
    // is agreed in the qmux parameters.
    const agreed = negotiateTlsAlpn((socket as Socket & { alpnProtocol?: string | false }).alpnProtocol);
    const framing = createFraming(agreed.framing, { role: "client", carrier: "stream", autoConsume: true, params: { applicationProtocols: [...LINK_ALPNS] } });
    const session = attachSession(ctx, streamCarrier(socket), {
      framing,
      mode: agreed.moqAlpn === undefined ? { kind: "transport" } : (versionMode(agreed.moqAlpn) ?? { kind: "transport" }),
      transport: "tcp",
      ...attachOptions(address, options, `${address.host}:${String(address.port)}`),
    });
    bindStream(socket, session);
    result.resolve(session);
  });
  return {
    session: result.session,
    abort: () => {
      socket.destroy();
    },
  };
}

/**
 * Plain TCP has no ALPN: we speak first, qmux-02 records unless `?qmux=` says otherwise, and the
 * peer's first bytes tell its wire. A qmux-02/01 peer settles the version by its transport
 * parameters (matchPeerVersion); a qmux-00-only peer (a relay from before qmux-01 over TCP) sends
 * its bare-frame parameters at once and refuses our records, so we redial it at once over qmux-00.
 */
function dialPlainTcp(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  let socket: Socket | undefined;
  const result = outcome(address, options.timeoutMs, () => socket?.destroy());
  const log = ctx.log.child({ ...options.logFields, peer: address.url });
  const attempt = (version: QmuxVersion): void => {
    const current = tcpConnect({ host: address.host, port: address.port });
    socket = current;
    const live = (): boolean => socket === current;
    current.once("error", (err) => {
      if (live()) result.fail(err.message);
    });
    current.once("close", () => {
      if (live()) result.fail("closed");
    });
    current.once("connect", () => {
      if (!live()) return;
      current.setNoDelay(true);
      const framing = createFraming(version, {
        role: "client",
        carrier: "stream",
        autoConsume: true,
        matchPeerVersion: version === "qmux-02",
        params: { applicationProtocols: [...LINK_ALPNS] },
      });
      // Our transport parameters go first: a sniffing listener waits for them.
      for (const event of framing.poll()) if (event.kind === "send") current.write(event.bytes);
      sniffSocket(current, options.timeoutMs, (sniff) => {
        if (!live()) return;
        if (sniff.kind === "closed") return; // the close handler reports it
        if (sniff.kind === "refused") {
          result.fail(`peer answered ${sniff.reason}`);
          return;
        }
        const records = version !== "qmux-00";
        if (records && sniff.kind === "qmux-00" && address.qmux === undefined) {
          log.info({ offered: version }, "peer speaks qmux-00 only: redialing over qmux-00");
          current.destroy();
          attempt("qmux-00");
          return;
        }
        if (records !== (sniff.kind === "records")) {
          result.fail(`peer answered ${sniff.kind === "records" ? "qmux-01/02 records" : "qmux-00"} to our ${version}`);
          return;
        }
        if (!result.claim()) return;
        const session = attachSession(ctx, streamCarrier(current), {
          framing,
          mode: { kind: "transport" },
          transport: "tcp",
          ...attachOptions(address, options, `${address.host}:${String(address.port)}`),
        });
        bindStream(current, session);
        session.receive(sniff.bytes);
        result.resolve(session);
      });
    });
  };
  attempt(address.qmux ?? "qmux-02");
  return {
    session: result.session,
    abort: () => {
      socket?.destroy();
    },
  };
}

function dialWs(ctx: AttachContext, address: PeerAddress, options: DialOptions): Dial {
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  const url = `${address.secure ? "wss" : "ws"}://${host}:${String(address.port)}${address.path === "" ? "/" : address.path}${address.search}`;
  const ws = new WebSocket(url, LINK_SUBPROTOCOLS, {
    maxPayload: 1 << 20,
    handshakeTimeout: options.timeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const result = outcome(address, options.timeoutMs, () => {
    ws.terminate();
  });
  ws.once("error", (err) => {
    result.fail(err.message);
  });
  ws.once("close", () => {
    result.fail("closed");
  });
  ws.once("open", () => {
    // The peer picked the newest pair both speak; it must be one of ours and name a version.
    const choice = negotiateSubprotocol(ws.protocol, LINK_ALPNS);
    const mode = choice.ok && choice.moqAlpn !== undefined ? versionMode(choice.moqAlpn) : undefined;
    if (!choice.ok || mode === undefined || choice.subprotocol !== ws.protocol) {
      result.fail(`the peer answered subprotocol "${ws.protocol}", none of ${LINK_SUBPROTOCOLS.join(", ")}`);
      return;
    }
    if (!result.claim()) return;
    const framing = createFraming(choice.framing, { role: "client", autoConsume: true });
    const session = attachSession(ctx, webSocketCarrier(ws), {
      framing,
      mode,
      transport: "ws",
      ...attachOptions(address, options, url),
    });
    bindWebSocket(ws, session);
    result.resolve(session);
  });
  return {
    session: result.session,
    abort: () => {
      ws.terminate();
    },
  };
}
