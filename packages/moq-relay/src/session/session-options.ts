import type { LiteVersion } from "@handoff/moq-resume/lite";
import type { FramingSession } from "@handoff/qmux";
import type { Permissions } from "../rules/index.js";
import type { ByteBudget, Origin } from "../origin/index.js";
import type { SessionLimits, SessionStats } from "../context/index.js";
import type { VersionMode } from "./version.js";

/** Where a session's output goes: the socket driver. */
export interface SessionSink {
  /** Bytes to put on the wire (one WebSocket message, or a chunk of the TCP stream). */
  send(bytes: Uint8Array): void;
  /** The session is over; close the socket once the sends are flushed. */
  closed(code: number, reason: string): void;
  /** The peer sent GOAWAY (lite-04+): reconnect to `uri` (empty: the same endpoint) and migrate. */
  goaway?(uri: string): void;
  /** The moq-lite version is settled (by ALPN, the qmux parameters or the in-band SETUP). */
  version?(version: LiteVersion): void;
}

/** Options of one session. */
export interface SessionOptions {
  /** Unique id (logs, split horizon). */
  readonly id: number;
  /** The connection's framing (qmux or the legacy WebSocket framing): the session's only way to its peer. */
  readonly framing: FramingSession;
  /** How the moq-lite version is chosen: fixed by the transport's ALPN or subprotocol, by the qmux parameters, or by the in-band SETUP. */
  readonly mode: VersionMode;
  /** The relay's origin, shared by every session. */
  readonly origin: Origin;
  /** The connection's path scope: the peer's paths are relative to it. */
  readonly root: string;
  /** What the peer may publish and subscribe to. */
  readonly permissions: Permissions;
  /** Where the session's output goes. */
  readonly sink: SessionSink;
  /** Per-session bounds (default {@link DEFAULT_SESSION_LIMITS}). */
  readonly limits?: Partial<SessionLimits>;
  /** Counters the session reports (default: none counted). */
  readonly stats?: SessionStats;
  /** Link cost of routes learnt from this peer (default 0). */
  readonly cost?: number;
  /**
   * Runs `flush` later in this turn of the event loop (the server passes `setImmediate`), so the
   * frames a turn brings cost one flush per session instead of one per frame and subscriber.
   * Default: at once.
   */
  readonly defer?: (flush: () => void) => void;
  /**
   * An error escaped work this session did from outside its own events (another connection's
   * event woke it, a deferred flush): the session has stopped doing such work and `fault` ends it
   * (the server logs, counts and closes it, later in the turn, so the connection whose event it
   * was carries on undisturbed). Default: close with {@link RelayCode.Internal}, deferred.
   */
  readonly fault?: (where: string, error: unknown) => void;
  /** The relay's byte budget: what the peer sends is counted against it (default: not counted). */
  readonly budget?: ByteBudget;
}
