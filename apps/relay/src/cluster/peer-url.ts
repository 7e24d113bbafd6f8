import type { QmuxVersion } from "@handoff/qmux";

/** How a relay reaches a peer: qmux over raw TCP or TLS, or qmux over WebSocket. */
export interface PeerAddress {
  /** The URL as given (for logs). */
  readonly url: string;
  readonly transport: "tcp" | "ws";
  readonly host: string;
  readonly port: number;
  /** TLS (`tls://` or `wss://`). */
  readonly secure: boolean;
  /** The path scope (the broadcast root on the peer); "" on raw TCP. */
  readonly path: string;
  /** WebSocket only: the query kept on the request (a `?jwt=` token). */
  readonly search: string;
  /** Link cost of routes learnt from this peer (`?cost=`, default 1). */
  readonly cost: number;
  /**
   * `tcp://` only (`?qmux=00|01|02`): the qmux version to dial. Undefined: qmux-02, settling on
   * qmux-01 or redialing qmux-00 as the peer answers (TLS and WebSocket negotiate it instead).
   */
  readonly qmux: QmuxVersion | undefined;
}

const QMUX_CHOICES: Readonly<Record<string, QmuxVersion>> = { "00": "qmux-00", "01": "qmux-01", "02": "qmux-02" };

/** A peer URL the relay cannot use. */
export class PeerUrlError extends Error {
  override readonly name = "PeerUrlError";
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "tcp:": 4444, "tls:": 4444, "ws:": 4443, "wss:": 443 };

/**
 * Parses a peer URL: `tcp://host:port[?cost=N]` (qmux over TCP), `tls://…` (qmux over TLS),
 * `ws://host:port/path[?cost=N&jwt=T]` or `wss://…` (qmux over WebSocket).
 * `cost` (and `qmux` on `tcp://`) are removed from what is sent to the peer; everything else in
 * the query is kept.
 */
export function parsePeerUrl(text: string): PeerAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PeerUrlError(`not a URL: ${text}`);
  }
  const port = DEFAULT_PORTS[url.protocol];
  if (port === undefined) throw new PeerUrlError(`unsupported scheme in ${text} (use tcp://, tls://, ws:// or wss://)`);
  if (url.hostname === "") throw new PeerUrlError(`no host in ${text}`);
  const costText = url.searchParams.get("cost");
  let cost = 1;
  if (costText !== null) {
    if (!/^\d+$/.test(costText) || !Number.isSafeInteger(Number(costText))) throw new PeerUrlError(`cost must be a whole number in ${text}`);
    cost = Number(costText);
    url.searchParams.delete("cost");
  }
  const tcp = url.protocol === "tcp:" || url.protocol === "tls:";
  const qmuxText = url.searchParams.get("qmux");
  let qmux: QmuxVersion | undefined;
  if (qmuxText !== null) {
    if (url.protocol !== "tcp:") throw new PeerUrlError(`qmux= is for tcp:// peers (TLS and WebSocket negotiate it): ${text}`);
    qmux = QMUX_CHOICES[qmuxText];
    if (qmux === undefined) throw new PeerUrlError(`qmux must be 00, 01 or 02 in ${text}`);
    url.searchParams.delete("qmux");
  }
  if (tcp && url.pathname !== "" && url.pathname !== "/") throw new PeerUrlError(`a ${url.protocol}// peer has no path: ${text}`);
  let path: string;
  try {
    path = tcp ? "" : decodeURIComponent(url.pathname);
  } catch {
    // A GOAWAY from a peer carries a URI: network input, so a bad escape is an error, not a crash.
    throw new PeerUrlError(`bad percent-escape in the path of ${text}`);
  }
  // IPv6 literals come bracketed from URL; net.connect wants them bare.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return {
    url: text,
    transport: tcp ? "tcp" : "ws",
    host,
    port: url.port === "" ? port : Number(url.port),
    secure: url.protocol === "wss:" || url.protocol === "tls:",
    path,
    search: tcp ? "" : url.search,
    cost,
    qmux,
  };
}

/**
 * Where a GOAWAY sends us: the URI it carries resolved against the peer it came from. An empty
 * URI means the same endpoint; the link cost carries over unless the URI names its own.
 */
export function redirectTarget(from: PeerAddress, uri: string): PeerAddress {
  if (uri === "") return from;
  const target = parsePeerUrl(uri);
  return new URL(uri).searchParams.has("cost") ? target : { ...target, cost: from.cost };
}
