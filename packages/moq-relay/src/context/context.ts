import type { LiteStreamWriter, LiteVersion } from "@handoff/moq-resume/lite";
import type { Permissions } from "../rules/index.js";
import type { Origin, RouteSource } from "../origin/index.js";
import type { SessionLimits } from "./limits.js";
import type { SessionMemory } from "./memory.js";
import type { SessionStats } from "./stats.js";
import type { StreamIo } from "./stream-io.js";

/** The state a session shares with the modules it delegates to (announces, serving, upstream). */
export interface SessionContext {
  readonly io: StreamIo;
  readonly origin: Origin;
  /** The connection's path scope (normalized). */
  readonly root: string;
  readonly permissions: Permissions;
  readonly limits: SessionLimits;
  readonly stats: SessionStats;
  /** The relay's byte budget, as this session reports to it. */
  readonly memory: SessionMemory;
  /** Link cost of routes learnt from this peer. */
  readonly cost: number;
  /** The session itself, as the origin knows it (a route source, a subscriber, an announcer). */
  readonly source: RouteSource;
  /** The negotiated version, once known. */
  readonly version: LiteVersion | undefined;
  /** The encoder for the negotiated version, once known. */
  readonly writer: LiteStreamWriter | undefined;
  /** True once the session ended. */
  readonly closed: boolean;
  /** Processes what the framing queued (re-entrant-safe). */
  drain(): void;
  /** Closes the whole session. */
  close(code: number, reason: string): void;
  /**
   * Runs `fn`, work of this session done from another connection's event or a timer (an
   * announce watch, a fetch wake-up), so that an error escaping it fails this session only.
   */
  contain(where: string, fn: () => void): void;
}
