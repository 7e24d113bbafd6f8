import { GroupReader, type ResumeTrack, type Track } from "@handoff/moq-resume";
import { normalizePath, stripPathPrefix } from "@handoff/moq-resume/lite";
import type { Clock } from "@handoff/seqlog";
import { bestRoute, bestRouteAvoiding, compareRoutes, type Route, type RouteSource } from "./route.js";
import { SharedTrack, type SharedHost, type TrackMove } from "./shared-track.js";
import { TrackInfos, type TrackInfoAnswer } from "./track-infos.js";

/** A broadcast became reachable (or stopped being reachable) for one watcher. */
export interface AnnounceEvent {
  /** Absolute broadcast path. */
  readonly path: string;
  /** True when the broadcast became (or is still) reachable, false when it no longer is. */
  readonly active: boolean;
  /** Hops of the best route the watcher may use (empty when it ended). */
  readonly hops: readonly number[];
  /** Cost of that route (0 when it ended). */
  readonly cost: number;
  /** The broadcast was already visible and its best route's hops or cost changed (lite-06 ANNOUNCE_UPDATE). */
  readonly update?: boolean;
}

/** Why a subscription could not be routed. */
export type SubscribeRefusal = "not-found" | "unavailable";

/** The result of {@link Origin.subscribe}. */
export type OriginSubscription =
  | { readonly ok: true; readonly track: ResumeTrack; readonly release: () => void }
  | { readonly ok: false; readonly reason: SubscribeRefusal };

interface Watcher {
  readonly prefix: string;
  readonly exclude: RouteSource | undefined;
  readonly listener: (event: AnnounceEvent) => void;
  /** Visible paths, each with the signature (cost and hops) of the best route last reported. */
  readonly visible: Map<string, string>;
}

/** Options of an {@link Origin}. */
export interface OriginOptions {
  /** Groups a resumed track keeps when it parks into a cache (default 32). */
  readonly cacheGroups?: number;
  /** Told whenever a track starts on, or moves to, an upstream copy (logs, metrics). */
  readonly onMove?: (move: TrackMove) => void;
  /**
   * How long a track nobody reads keeps its upstream copy (ms, default 0): a reader that comes
   * back within it, such as a sibling resubscribing after a handover, continues the same copy
   * instead of restarting the publisher's track. Released by {@link Origin.sweep}.
   */
  readonly lingerMs?: number;
  /** Time source for the linger and the tracks' caches: the relay's monotonic clock. */
  readonly clock: Clock;
}

/**
 * The relay's routing table, without I/O: broadcasts by path, each with the routes (sessions)
 * that announced it, announce watchers by prefix, and one shared, resumed track per track: its
 * upstream copy moves to another route on failover or drain without readers noticing.
 */
export class Origin {
  /** This relay's hop id: appended to forwarded announces, and how loops are recognised. */
  readonly hopId: number;
  readonly #routes = new Map<string, Route[]>();
  readonly #watchers = new Set<Watcher>();
  /** The shared track per path and name. */
  readonly #tracks = new Map<string, SharedTrack>();
  /** Every live track, shared or private (a reader whose own session feeds the shared one). */
  readonly #live = new Set<SharedTrack>();
  /** The live tracks by path, so a route change re-evaluates only its own path's tracks. */
  readonly #byPath = new Map<string, Set<SharedTrack>>();
  readonly #cacheGroups: number;
  readonly #host: SharedHost;
  readonly #lingerMs: number;
  readonly #clock: Clock;
  /** Tracks nobody reads, with when they became idle. */
  readonly #idle = new Map<SharedTrack, number>();
  /** The publishers' track infos learnt, and the queries for them in flight. */
  readonly #infos = new TrackInfos();
  #order = 0;

  /** @param hopId non-zero, below 2^53 (old JS clients decode hop ids as u53) */
  constructor(hopId: number, options: OriginOptions) {
    if (!Number.isSafeInteger(hopId) || hopId <= 0) throw new RangeError(`invalid hop id ${String(hopId)}`);
    this.hopId = hopId;
    this.#cacheGroups = options.cacheGroups ?? 32;
    this.#lingerMs = options.lingerMs ?? 0;
    this.#clock = options.clock;
    const onMove = options.onMove;
    this.#host = {
      clock: this.#clock,
      routes: (path) => this.routes(path),
      moved: (move) => onMove?.(move),
      idle: (shared) => {
        if (this.#lingerMs <= 0) shared.release();
        else this.#idle.set(shared, this.#clock.now());
      },
      ended: (shared) => {
        this.#idle.delete(shared);
        this.#live.delete(shared);
        const onPath = this.#byPath.get(shared.path);
        onPath?.delete(shared);
        if (onPath?.size === 0) this.#byPath.delete(shared.path);
        const key = trackKey(shared.path, shared.name);
        if (this.#tracks.get(key) === shared) this.#tracks.delete(key);
      },
    };
  }

  /** The relay's clock, for the tracks its sessions make. */
  get clock(): Clock {
    return this.#clock;
  }

  /** Number of routable broadcasts. */
  get broadcasts(): number {
    return this.#routes.size;
  }

  /** Number of live upstream-fed tracks. */
  get sharedTracks(): number {
    return this.#live.size;
  }

  /** Adds (or refreshes) `source`'s route to `path`. */
  announce(path: string, source: RouteSource, hops: readonly number[], cost = 0): void {
    const key = normalizePath(path);
    const previous = this.#routes.get(key)?.find((r) => r.source === source);
    const routes = (this.#routes.get(key) ?? []).filter((r) => r.source !== source);
    // A draining source stays draining when it re-announces.
    routes.push({ source, hops: [...hops], cost, order: this.#order++, ...(previous?.draining === true ? { draining: true } : {}) });
    routes.sort(compareRoutes);
    this.#routes.set(key, routes);
    this.#notify(key);
    this.#reroute(key);
  }

  /**
   * Marks every route of `source` as draining (it sent GOAWAY): they sort last but still serve
   * when they are the only way, and tracks fed through them move to the best live route.
   */
  drain(source: RouteSource): void {
    const touched: string[] = [];
    for (const [path, routes] of this.#routes) {
      const at = routes.findIndex((r) => r.source === source);
      const route = routes[at];
      if (route === undefined || route.draining === true) continue;
      routes[at] = { ...route, draining: true };
      routes.sort(compareRoutes);
      touched.push(path);
    }
    for (const path of touched) this.#reroute(path);
  }

  /** True when every broadcast `source` announced is also reachable through another live route. */
  covered(source: RouteSource): boolean {
    for (const routes of this.#routes.values()) {
      if (!routes.some((r) => r.source === source)) continue;
      if (!routes.some((r) => r.source !== source && r.draining !== true)) return false;
    }
    return true;
  }

  /** How many live tracks are fed by a copy from `source`. */
  fedBy(source: RouteSource): number {
    let count = 0;
    for (const shared of this.#live) if (shared.source === source) count += 1;
    return count;
  }

  /** Removes `source`'s route to `path`. */
  unannounce(path: string, source: RouteSource): void {
    const key = normalizePath(path);
    const routes = this.#routes.get(key);
    if (routes === undefined) return;
    const left = routes.filter((r) => r.source !== source);
    if (left.length === routes.length) return;
    if (left.length === 0) {
      this.#routes.delete(key);
      // The next publisher of this path may describe its tracks differently.
      this.#infos.forget(key);
    } else this.#routes.set(key, left);
    this.#notify(key);
    this.#reroute(key);
  }

  /** Removes every route of `source` (its session ended). */
  removeSource(source: RouteSource): void {
    for (const [path, routes] of [...this.#routes]) {
      if (routes.some((r) => r.source === source)) this.unannounce(path, source);
    }
  }

  /** The routes to `path`, best first. */
  routes(path: string): readonly Route[] {
    return this.#routes.get(normalizePath(path)) ?? [];
  }

  /** Broadcasts under `prefix` reachable without going through `exclude`, sorted by path. */
  announced(prefix: string, exclude?: RouteSource): AnnounceEvent[] {
    const out: AnnounceEvent[] = [];
    for (const [path, routes] of this.#routes) {
      if (stripPathPrefix(prefix, path) === undefined) continue;
      const best = bestRoute(routes, exclude);
      if (best !== undefined) out.push({ path, active: true, hops: best.hops, cost: best.cost });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Watches broadcasts under `prefix` as seen from `exclude` (split horizon: routes through it
   * do not count). Returns the initial set and the removal; later changes go to `listener`.
   */
  watch(
    prefix: string,
    exclude: RouteSource | undefined,
    listener: (event: AnnounceEvent) => void,
  ): { readonly initial: AnnounceEvent[]; readonly close: () => void } {
    const initial = this.announced(prefix, exclude);
    const watcher: Watcher = { prefix: normalizePath(prefix), exclude, listener, visible: new Map(initial.map((e) => [e.path, signature(e)])) };
    this.#watchers.add(watcher);
    return {
      initial,
      close: () => {
        this.#watchers.delete(watcher);
      },
    };
  }

  /**
   * Subscribes to `track` of `path` for a downstream reader coming from `requester`. All readers
   * of a track share one resumed track fed by one upstream subscription, made on the best route
   * that does not lead back to a requester; `release` drops this reader's share, and the last
   * one cancels upstream. `start` (an explicit first group) is asked upstream when this reader
   * starts the track.
   */
  subscribe(path: string, track: string, priority: number, requester: RouteSource | undefined, start?: number): OriginSubscription {
    const normal = normalizePath(path);
    const key = trackKey(normal, track);
    let shared = this.#tracks.get(key);
    if (shared?.ended === true) {
      this.#tracks.delete(key);
      shared = undefined;
    }
    // A copy fed by the requester itself would loop, and a copy that started after the reader's
    // explicit start cannot give it the groups before: such a reader gets a private track, its
    // own upstream subscription from where it asked.
    if (shared === undefined || shared.source === requester || (start !== undefined && shared.misses(start))) {
      const fresh = new SharedTrack(normal, track, priority, this.#host, this.#cacheGroups);
      const started = fresh.start(requester, start);
      if (started !== "ok") return { ok: false, reason: started };
      this.#live.add(fresh);
      const onPath = this.#byPath.get(normal) ?? new Set<SharedTrack>();
      onPath.add(fresh);
      this.#byPath.set(normal, onPath);
      if (shared === undefined) this.#tracks.set(key, fresh);
      shared = fresh;
    }
    this.#idle.delete(shared);
    return { ok: true, track: shared.resume, release: shared.join(requester) };
  }

  /** Releases tracks that lingered unread past the linger time; returns how many. */
  sweep(): number {
    const now = this.#clock.now();
    let released = 0;
    for (const [shared, since] of [...this.#idle]) {
      if (now - since < this.#lingerMs) continue;
      shared.release();
      released += 1;
    }
    return released;
  }

  /**
   * The publisher's info of `track` of `path` (TRACK_INFO), for a reader coming from
   * `requester`: from the cache, else asked of the best route that avoids the requester.
   * Concurrent readers share one query; a route whose session ends before answering is replaced
   * by the next one. `answer` is called once, possibly at once; the result is a failure with code
   * undefined when no route is left. Returns the reader's removal.
   */
  trackInfo(path: string, track: string, requester: RouteSource | undefined, answer: TrackInfoAnswer): () => void {
    const normal = normalizePath(path);
    const known = this.#infos.get(normal, track);
    if (known !== undefined) {
      answer({ ok: true, info: known });
      return noop;
    }
    return this.#infos.wait(normal, track, answer, () => {
      this.#askInfo(normal, track, requester, new Set());
    });
  }

  /** Cached track infos (tests, metrics). */
  get trackInfos(): number {
    return this.#infos.size;
  }

  #askInfo(path: string, track: string, requester: RouteSource | undefined, tried: Set<RouteSource>): void {
    for (;;) {
      const route = bestRouteAvoiding(this.routes(path), (s) => s === requester || tried.has(s));
      if (route === undefined) {
        this.#infos.settle(path, track, { ok: false, code: undefined });
        return;
      }
      tried.add(route.source);
      const asked =
        route.source.askTrackInfo?.(path, track, (result) => {
          if (!result.ok && result.gone === true) this.#askInfo(path, track, requester, tried);
          else this.#infos.settle(path, track, result);
        }) ?? false;
      if (asked) return;
    }
  }

  /** The resumed track readers of `track` of `path` share, if the relay is subscribed to it. */
  cachedTrack(path: string, track: string): ResumeTrack | undefined {
    return this.#tracks.get(trackKey(normalizePath(path), track))?.resume;
  }

  /** The upstream copy the shared `track` of `path` is filled by now, if any. */
  upstreamCopy(path: string, track: string): Track | undefined {
    return this.#tracks.get(trackKey(normalizePath(path), track))?.copy;
  }

  /** A reader of group `sequence` of a track the relay holds (across copies), if any holds it. */
  fetchGroup(path: string, track: string, sequence: number): GroupReader | undefined {
    const resume = this.cachedTrack(path, track);
    const group = resume?.fetch(sequence);
    if (resume === undefined || group === undefined) return undefined;
    return new GroupReader(group, resume);
  }

  #reroute(path: string): void {
    const onPath = this.#byPath.get(path);
    if (onPath !== undefined) for (const shared of [...onPath]) shared.reroute();
  }

  #notify(path: string): void {
    const routes = this.#routes.get(path) ?? [];
    for (const watcher of [...this.#watchers]) {
      if (!this.#watchers.has(watcher)) continue;
      if (stripPathPrefix(watcher.prefix, path) === undefined) continue;
      const best = bestRoute(routes, watcher.exclude);
      const was = watcher.visible.get(path);
      if (best !== undefined) {
        const event: AnnounceEvent = { path, active: true, hops: best.hops, cost: best.cost };
        const now = signature(event);
        if (was === now) continue;
        watcher.visible.set(path, now);
        watcher.listener(was === undefined ? event : { ...event, update: true });
      } else if (was !== undefined) {
        watcher.visible.delete(path);
        watcher.listener({ path, active: false, hops: [], cost: 0 });
      }
    }
  }
}

function signature(event: AnnounceEvent): string {
  return `${String(event.cost)}|${event.hops.join(",")}`;
}

function noop(): void {
  // Nothing to remove: the answer was given at once.
}

function trackKey(path: string, track: string): string {
  return `${path}\u0000${track}`;
}
