import type { LiteVersion } from "@handoff/moq-resume/lite";
import type { FramingSession } from "@handoff/qmux";
import type { Permissions } from "../auth/permissions.js";
import type { ByteBudget } from "../origin/byte-budget.js";
import type { Origin } from "../origin/origin.js";
import type { SessionLimits } from "./limits.js";
import type { SessionStats } from "./stats.js";
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
  readonly framing: FramingSession;
  readonly mode: VersionMode;
  readonly origin: Origin;
  /** The connection's path scope: the peer's paths are relative to it. */
  readonly root: string;
  readonly permissions: Permissions;
  readonly sink: SessionSink;
  readonly limits?: Partial<SessionLimits>;
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
