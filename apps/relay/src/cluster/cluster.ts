import type { AttachContext } from "../connection/attach.js";
import type { LiteSession } from "@handoff/moq-relay";
import { DEFAULT_PEER_TIMING, Peer, type PeerTiming } from "./peer.js";
import { parsePeerUrl } from "./peer-url.js";

/** Cluster settings of a relay. */
export interface ClusterOptions {
  /** Peer URLs to keep links to: `tcp://` or `tls://host:port?cost=N`, or `ws(s)://host:port/path?cost=N`. */
  readonly peers: readonly string[];
  /** Dial, handover and backoff timing (defaults in {@link DEFAULT_PEER_TIMING}). */
  readonly timing?: Partial<PeerTiming>;
  /** Certificates to trust for `tls://` and `wss://` peers besides the system's (PEM). */
  readonly ca?: string | Buffer;
}

/**
 * The relay's links to its peers: one {@link Peer} per configured URL. Peers exchange announces
 * over their sessions like any client, with the link cost on every route learnt; the sessions
 * this relay dialed are known here so a drain does not send GOAWAY up its own links.
 */
export class Cluster {
  readonly #peers: Peer[];
  readonly #dialed = new Set<LiteSession>();

  /** Throws `PeerUrlError` for a URL it cannot dial. */
  constructor(ctx: AttachContext, options: ClusterOptions) {
    const timing: PeerTiming = { ...DEFAULT_PEER_TIMING, ...options.timing };
    const hooks = {
      up: (session: LiteSession) => {
        this.#dialed.add(session);
      },
      down: (session: LiteSession) => {
        this.#dialed.delete(session);
      },
    };
    this.#peers = options.peers.map((url) => new Peer(parsePeerUrl(url), ctx, { timing, ca: options.ca }, hooks));
  }

  /** The configured peers. */
  get peers(): readonly Peer[] {
    return this.#peers;
  }

  /** True for a session this relay dialed (a link to a peer, not a client or a peer that dialed us). */
  dialed(session: LiteSession): boolean {
    return this.#dialed.has(session);
  }

  /** Starts every link. */
  start(): void {
    for (const peer of this.#peers) peer.start();
  }

  /** Stops every link and closes its sessions. */
  stop(): void {
    for (const peer of this.#peers) peer.stop();
  }
}
