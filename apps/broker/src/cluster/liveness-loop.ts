/**
 * A node's liveness duty on a timer: beat, install the claims of this node whose install failed
 * (routing/uninstalled-claims.ts), survey the cluster, adopt the sessions of each node found dead
 * (wills-adoption.ts), then take that node out of the set. Four beats per node timeout,
 * so one or two lost beats (a slow Redis, a busy event loop) do not make a live node look dead.
 * A round that fails (Redis down) is dropped; the next one starts over.
 * @module
 */
import { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";
import { Liveness, type ClusterView } from "./liveness.js";
import type { SettleMoved } from "./routing/handoff.js";
import type { UninstalledClaims } from "./routing/uninstalled-claims.js";
import { adoptSessionsOf, installUninstalled, type OrphanSource } from "./wills-adoption.js";

/** Settings of {@link startLivenessLoop}. */
export interface LivenessLoopOptions {
  readonly url: string;
  readonly keys: ClusterKeys;
  readonly nodeId: string;
  readonly timeoutMs: number;
  readonly store: OrphanSource;
  readonly router: Parameters<typeof adoptSessionsOf>[4];
  /** Installs an adopted session after the replay its route base owes it (cluster routing's). */
  readonly settle?: SettleMoved;
  /** Claims of this node whose install failed (cluster routing's): each round installs them. */
  readonly uninstalled?: UninstalledClaims;
  /** Claims that had failed to install were installed here as stopped sessions (for the log). */
  readonly onInstalled?: (clientIds: readonly string[]) => void;
  /** This node took a dead node out of the cluster's set, after adopting its sessions (once cluster-wide). */
  readonly onDead?: (deadNode: string) => void;
  /** Sessions of a dead node were adopted here (for the log). */
  readonly onAdopted: (deadNode: string, clientIds: readonly string[]) => void;
  /** A round failed (for the log; the next round tries again). */
  readonly onError: (err: unknown) => void;
  /** Wall-clock ms (tests drive it). Default Date.now. */
  readonly now?: () => number;
  /** Beat every this many ms. Default a quarter of the node timeout; tests turn the timer off with Infinity and call round(). */
  readonly beatEveryMs?: number;
}

/** A running loop. */
export interface LivenessLoop {
  /** The last survey; undefined before the first one completed. */
  readonly view: ClusterView | undefined;
  /** Runs one round now (beat, survey, adopt); resolves when it is done. */
  round(): Promise<void>;
  /** Stops beating (the heartbeat then expires: stop only as the node stops) and disconnects. */
  close(): Promise<void>;
}

/** Connects (its own connection, so a slow adoption never holds the store's batches back) and beats once before resolving. */
export async function startLivenessLoop(options: LivenessLoopOptions): Promise<LivenessLoop> {
  const redis = new Redis(options.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  redis.on("error", () => undefined); // a failed round is reported through onError
  await redis.connect();
  const clock = options.now ?? Date.now;
  const liveness = new Liveness({ redis, keys: options.keys, nodeId: options.nodeId, timeoutMs: options.timeoutMs, startedAt: clock() });
  let view: ClusterView | undefined;
  let running: Promise<void> | undefined;
  // Since when this node's beats have landed without a failure or a gap in between: after a Redis
  // outage (or at start) every heartbeat may have expired meanwhile, so a node is called dead only
  // once the others had a whole timeout to beat again. A gap counts as an outage: a Redis that was
  // paused (its commands hang, none fails) or this node paused itself (SIGSTOP, a frozen host) let
  // every heartbeat expire as surely as a failure, and the others are no more dead for it.
  let beatingSince: number | undefined;
  let lastLanded: number | undefined;
  const once = async (): Promise<void> => {
    const now = clock();
    await liveness.beat(now);
    const landed = clock();
    if (lastLanded === undefined || landed - lastLanded > options.timeoutMs / 2) beatingSince = landed;
    lastLanded = landed;
    if (options.uninstalled !== undefined && options.uninstalled.size > 0) {
      const installed = await installUninstalled(options.uninstalled, options.store, options.router, options.settle);
      if (installed.length > 0) options.onInstalled?.(installed);
    }
    view = await liveness.survey();
    if (landed - (beatingSince ?? landed) < options.timeoutMs) return;
    for (const dead of view.dead) {
      const adopted = await adoptSessionsOf(dead, redis, options.keys, options.store, options.router, options.settle, options.uninstalled);
      if (adopted.length > 0) options.onAdopted(dead, adopted);
      if (await liveness.forget(dead)) options.onDead?.(dead);
    }
  };
  const round = (): Promise<void> => {
    running ??= once()
      .catch((err: unknown) => {
        lastLanded = undefined;
        options.onError(err);
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  await round();
  const every = options.beatEveryMs ?? Math.max(10, Math.floor(options.timeoutMs / 4));
  const timer = Number.isFinite(every) ? setInterval(() => void round(), every) : undefined;
  timer?.unref();
  return {
    get view() {
      return view;
    },
    round,
    close: async () => {
      if (timer !== undefined) clearInterval(timer);
      await running;
      await redis.quit().catch(() => undefined);
    },
  };
}
