import type { Logger } from "pino";
import type { AttachContext } from "../connection/attach.js";
import { type LiteSession, RelayCode } from "@handoff/moq-relay";
import { dialPeer, type Dial } from "./dial.js";
import { redirectTarget, PeerUrlError, type PeerAddress } from "./peer-url.js";

/** Timing of a peer link. */
export interface PeerTiming {
  /** A dial that has not connected by then is abandoned (ms). */
  readonly dialTimeoutMs: number;
  /** After a GOAWAY, the old session is closed by then even if the tracks have not moved (ms). */
  readonly handoverTimeoutMs: number;
  /** First reconnect delay (ms); doubles per failed attempt up to {@link maxBackoffMs}. */
  readonly minBackoffMs: number;
  readonly maxBackoffMs: number;
}

/** How a peer link dials, besides its address. */
export interface PeerSettings {
  readonly timing: PeerTiming;
  /** Certificates to trust for TLS peers besides the system's (PEM). */
  readonly ca: string | Buffer | undefined;
}

/** Defaults for {@link PeerTiming}. */
export const DEFAULT_PEER_TIMING: PeerTiming = { dialTimeoutMs: 5000, handoverTimeoutMs: 5000, minBackoffMs: 250, maxBackoffMs: 5000 };

/** How often a handover checks whether every track left the old session (ms). */
const HANDOVER_POLL_MS = 25;

/** What a peer link reports to the cluster. */
export interface PeerHooks {
  /** A session to the peer came up or went (the cluster keeps the set of dialed sessions). */
  up(session: LiteSession): void;
  down(session: LiteSession): void;
}

/**
 * One configured peer: a persistent link that reconnects with backoff when it drops, and follows
 * a GOAWAY. On GOAWAY the old session's routes drain (the origin moves every track to the best
 * live route), the link dials the URI it was given (empty: the same endpoint), and the old
 * session is closed once nothing is fed through it and everything it announced is reachable
 * another way, or when the handover deadline passes, whichever comes first, even if the new
 * dial hangs.
 */
export class Peer {
  /** The configured endpoint: where the link goes back to when a redirected one fails. */
  readonly #configured: PeerAddress;
  #address: PeerAddress;
  readonly #ctx: AttachContext;
  readonly #timing: PeerTiming;
  readonly #ca: string | Buffer | undefined;
  readonly #hooks: PeerHooks;
  readonly #log: Logger;
  #current: LiteSession | undefined;
  #dial: Dial | undefined;
  #retry: NodeJS.Timeout | undefined;
  #attempt = 0;
  #stopped = false;
  readonly #handovers = new Map<LiteSession, () => void>();

  constructor(address: PeerAddress, ctx: AttachContext, settings: PeerSettings, hooks: PeerHooks) {
    this.#configured = address;
    this.#address = address;
    this.#ctx = ctx;
    this.#timing = settings.timing;
    this.#ca = settings.ca;
    this.#hooks = hooks;
    this.#log = ctx.log.child({ peer: address.url });
  }

  /** Where the link points now (a GOAWAY may have moved it until that link fails). */
  get address(): PeerAddress {
    return this.#address;
  }

  /** The live session, if connected. */
  get session(): LiteSession | undefined {
    return this.#current;
  }

  /** Starts dialing. */
  start(): void {
    this.#connect();
  }

  /** Stops the link: no more dials, every session closed. */
  stop(code: number = RelayCode.Shutdown, reason = "relay shutting down"): void {
    this.#stopped = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#dial?.abort();
    this.#dial = undefined;
    for (const [old, cancel] of [...this.#handovers]) {
      cancel();
      old.close(code, reason);
    }
    this.#current?.close(code, reason);
  }

  #connect(): void {
    if (this.#stopped || this.#dial !== undefined) return;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
    const address = this.#address;
    const dial = dialPeer(this.#ctx, address, {
      timeoutMs: this.#timing.dialTimeoutMs,
      ca: this.#ca,
      logFields: { link: "dialed" },
      onGoaway: (session, uri) => {
        this.#onGoaway(session, uri);
      },
      onClosed: (session, code, reason) => {
        this.#onClosed(session, code, reason);
      },
    });
    this.#dial = dial;
    dial.session.then(
      (session) => {
        if (this.#dial === dial) this.#dial = undefined;
        this.#ctx.metrics.dial("ok");
        if (this.#stopped || this.#current !== undefined) {
          session.close(RelayCode.Cancel, "link no longer wanted");
          return;
        }
        if (session.closed) {
          // Closed between the connect and now: nothing to adopt, dial again.
          this.#schedule();
          return;
        }
        this.#attempt = 0;
        this.#current = session;
        this.#ctx.metrics.peer(1);
        this.#hooks.up(session);
        this.#log.info({ session: session.id, url: address.url }, "peer link up");
      },
      (err: unknown) => {
        if (this.#dial === dial) this.#dial = undefined;
        this.#ctx.metrics.dial("failed");
        this.#log.warn({ err: err instanceof Error ? err.message : String(err) }, "peer dial failed");
        this.#schedule();
      },
    );
  }

  #schedule(): void {
    if (this.#stopped || this.#retry !== undefined || this.#dial !== undefined || this.#current !== undefined) return;
    // A redirect is followed once; when its link fails, the configured endpoint is tried again.
    this.#address = this.#configured;
    const delay = Math.min(this.#timing.maxBackoffMs, this.#timing.minBackoffMs * 2 ** this.#attempt);
    this.#attempt += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect();
    }, delay);
    this.#retry.unref();
  }

  #onClosed(session: LiteSession, code: number, reason: string): void {
    this.#hooks.down(session);
    this.#handovers.get(session)?.();
    if (session !== this.#current) return;
    this.#current = undefined;
    this.#ctx.metrics.peer(-1);
    this.#log.info({ session: session.id, code, reason }, "peer link down; reconnecting");
    this.#schedule();
  }

  #onGoaway(session: LiteSession, uri: string): void {
    if (session !== this.#current) return;
    let target = this.#address;
    try {
      target = redirectTarget(this.#address, uri);
    } catch (err) {
      if (!(err instanceof PeerUrlError)) throw err;
      this.#log.warn({ uri, err: err.message }, "GOAWAY names a URI we cannot dial; reconnecting to the same endpoint");
    }
    this.#address = target;
    this.#current = undefined;
    this.#ctx.metrics.peer(-1);
    this.#log.info({ session: session.id, uri, to: target.url, deadlineMs: this.#timing.handoverTimeoutMs }, "peer sent GOAWAY: handing over");
    this.#handover(session);
    this.#attempt = 0;
    this.#connect();
  }

  /** Closes `old` once its tracks moved and its broadcasts are covered, or at the deadline. */
  #handover(old: LiteSession): void {
    const origin = this.#ctx.origin;
    let done = false;
    const finish = (outcome: "migrated" | "deadline" | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearInterval(poll);
      this.#handovers.delete(old);
      if (outcome === undefined) return;
      this.#ctx.metrics.handover(outcome);
      this.#log.info({ session: old.id, outcome, fed: origin.fedBy(old) }, "handover over: closing the old session");
      old.close(RelayCode.GoingAway, outcome === "migrated" ? "handover complete" : "handover deadline");
    };
    const deadline = setTimeout(() => {
      finish("deadline");
    }, this.#timing.handoverTimeoutMs);
    const poll = setInterval(() => {
      if (origin.fedBy(old) === 0 && origin.covered(old)) finish("migrated");
    }, HANDOVER_POLL_MS);
    deadline.unref();
    poll.unref();
    this.#handovers.set(old, () => {
      finish(undefined);
    });
  }
}
