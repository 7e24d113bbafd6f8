import type { Logger } from "pino";
import { type ByteBudget, LiteSession, type Origin, type Permissions, RelayCode, type SessionLimits, type VersionMode } from "@handoff/moq-relay";
import type { RelayMetrics } from "../metrics/metrics.js";
import { atExpiry } from "./expiry.js";
import { contain, guarded } from "./guard.js";
import { tallyResets } from "./reset-tally.js";
import { liteVersionName } from "@handoff/moq-resume/lite";
import type { FramingSession } from "@handoff/qmux";

/** The socket side of a session: how to write and how to hang up. */
export interface Carrier {
  send(bytes: Uint8Array): void;
  /** Closes gracefully (flush, then FIN or a close frame). */
  end(): void;
  /** Closes at once, whatever is unsent. */
  destroy(): void;
}

/** Runs one connection's event handlers so that an error escaping them closes only that connection. */
export type ConnectionGuard = <A extends unknown[]>(where: string, fn: (...args: A) => void) => (...args: A) => void;

const guards = new WeakMap<LiteSession, ConnectionGuard>();

/** The guard of a session made by {@link attachSession}: socket bindings wrap their handlers in it. */
export function guardOf(session: LiteSession): ConnectionGuard {
  return guards.get(session) ?? ((_where, fn) => fn);
}

/** Shared state every connection needs. */
export interface AttachContext {
  readonly origin: Origin;
  readonly metrics: RelayMetrics;
  readonly log: Logger;
  readonly limits: Partial<SessionLimits>;
  /** The relay's byte budget over what peers send (undefined: not counted). */
  readonly budget?: ByteBudget;
  /** Every live session, so shutdown can close them. */
  readonly sessions: Set<LiteSession>;
  nextId: number;
  /** After a session ends, how long its socket may take to close before it is destroyed (ms). */
  readonly closeGraceMs?: number;
}

/** Default {@link AttachContext.closeGraceMs}: a peer that never answers our close loses its socket then. */
export const DEFAULT_CLOSE_GRACE_MS = 2000;

/** What to attach: one connection's framing, version mode, scope and grant. */
export interface AttachOptions {
  readonly framing: FramingSession;
  readonly mode: VersionMode;
  readonly root: string;
  readonly permissions: Permissions;
  readonly transport: "ws" | "tcp";
  /** When the token expires (epoch ms): the session is closed then. */
  readonly expiresAt: number | undefined;
  readonly remote: string;
  /** Link cost of routes learnt from this peer (default 0; cluster links carry their own). */
  readonly cost?: number;
  /** Extra log fields (a cluster link names its peer). */
  readonly logFields?: Readonly<Record<string, unknown>>;
  /** The peer sent GOAWAY (after its routes were marked draining). */
  readonly onGoaway?: (session: LiteSession, uri: string) => void;
  /** The session ended. */
  readonly onClosed?: (session: LiteSession, code: number, reason: string) => void;
}

/**
 * Runs one session over a carrier: ticks the framing every second, closes the session when its
 * token expires, and tears everything down when either side goes away.
 */
export function attachSession(ctx: AttachContext, carrier: Carrier, options: AttachOptions): LiteSession {
  const id = ctx.nextId++;
  const log = ctx.log.child({ session: id, remote: options.remote, transport: options.transport, ...options.logFields });
  const timers: NodeJS.Timeout[] = [];
  const cancels: (() => void)[] = [];
  let ended = false;
  const tally = tallyResets(ctx.metrics);
  // The bookkeeping of an ended session, also run when its teardown itself failed.
  const finish = (code: number, reason: string): void => {
    if (ended) return;
    ended = true;
    for (const t of timers) clearInterval(t);
    for (const cancel of cancels) cancel();
    ctx.sessions.delete(session);
    ctx.metrics.sessionClosed();
    // Why its groups were reset, by code (skipped 430, cancelled 0, incomplete 422, the peer's).
    log.info({ code, reason, ...(tally.resets.size === 0 ? {} : { groupResets: Object.fromEntries(tally.resets) }) }, "session closed");
    carrier.end();
    // A peer that never answers the close (half-open) does not keep its socket.
    const grace = setTimeout(() => {
      carrier.destroy();
    }, ctx.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
    grace.unref();
    options.onClosed?.(session, code, reason);
  };
  const abort = (): void => {
    carrier.destroy();
    try {
      session.close(RelayCode.Internal, "internal error");
    } finally {
      if (!ended) {
        ctx.origin.removeSource(session);
        finish(RelayCode.Internal, "internal error");
      }
    }
  };
  const guard: ConnectionGuard = (where, fn) => guarded(ctx, where, abort, fn);
  const session = new LiteSession({
    id,
    framing: options.framing,
    mode: options.mode,
    origin: ctx.origin,
    root: options.root,
    permissions: options.permissions,
    limits: ctx.limits,
    stats: tally.stats,
    ...(ctx.budget === undefined ? {} : { budget: ctx.budget }),
    ...(options.cost === undefined ? {} : { cost: options.cost }),
    // One flush per session per turn, however many frames the turn brought. One immediate per
    // session, not one batch for all: a batch made the 1,000-subscriber bench deliver 2% against
    // 12-50% with one each (likely: every socket then stays corked until all sessions flushed).
    defer: (flush) => {
      setImmediate(flush);
    },
    // Work this session did inside another connection's event failed: reported now, closed once
    // that event is over, so the other connection (a publisher fanning out) is not disturbed.
    fault: (where, error) => {
      contain(ctx, where, error, () => {
        setImmediate(guard("abort", abort));
      });
    },
    sink: {
      send: (bytes) => {
        if (!ended) carrier.send(bytes);
      },
      closed: (code, reason) => {
        finish(code, reason);
      },
      version: (version) => {
        log.info({ version: liteVersionName(version), qmux: options.framing.version ?? "webtransport" }, "moq-lite version agreed");
      },
      goaway: (uri) => {
        log.info({ uri }, "peer sent GOAWAY: its routes drain");
        ctx.metrics.goaway("received");
        ctx.origin.drain(session);
        options.onGoaway?.(session, uri);
      },
    },
  });
  guards.set(session, guard);
  ctx.sessions.add(session);
  ctx.metrics.sessionOpened(options.transport);
  log.info({ root: options.root }, "session opened");
  const tick = setInterval(
    guard("tick", () => {
      session.tick(performance.now());
    }),
    1000,
  );
  tick.unref();
  timers.push(tick);
  if (options.expiresAt !== undefined) {
    cancels.push(
      atExpiry(
        options.expiresAt,
        guard("expiry", () => {
          log.info("token expired");
          session.close(RelayCode.Expired, "token expired");
        }),
      ),
    );
  }
  try {
    session.start();
  } catch (err) {
    contain(ctx, "start", err, abort);
  }
  return session;
}
