import type { Track } from "@handoff/moq-resume";
import { normalizePath, stripPathPrefix } from "@handoff/moq-resume/lite";
import { bestRoute, compareRoutes, type Route, type RouteSource, type UpstreamTrack } from "./route.js";

/** A broadcast became reachable (or stopped being reachable) for one watcher. */
export interface AnnounceEvent {
  /** Absolute broadcast path. */
  readonly path: string;
  readonly active: boolean;
  /** Hops of the best route the watcher may use (empty when it ended). */
  readonly hops: readonly number[];
}

/** Why a subscription could not be routed. */
export type SubscribeRefusal = "not-found" | "unavailable";

/** The result of {@link Origin.subscribe}. */
export type OriginSubscription =
  | { readonly ok: true; readonly track: Track; readonly release: () => void }
  | { readonly ok: false; readonly reason: SubscribeRefusal };

interface Watcher {
  readonly prefix: string;
  readonly exclude: RouteSource | undefined;
  readonly listener: (event: AnnounceEvent) => void;
  readonly visible: Set<string>;
}

interface Shared {
  readonly upstream: UpstreamTrack;
  readonly source: RouteSource;
  refs: number;
}

/**
 * The relay's routing table, without I/O: broadcasts by path, each with the routes (sessions)
 * that announced it, announce watchers by prefix, and one shared upstream copy per track.
 */
export class Origin {
  /** This relay's hop id: appended to forwarded announces, and how loops are recognised. */
  readonly hopId: number;
  readonly #routes = new Map<string, Route[]>();
  readonly #watchers = new Set<Watcher>();
  readonly #tracks = new Map<string, Shared>();
  #order = 0;

  /** @param hopId non-zero, below 2^53 (old JS clients decode hop ids as u53) */
  constructor(hopId: number) {
    if (!Number.isSafeInteger(hopId) || hopId <= 0) throw new RangeError(`invalid hop id ${String(hopId)}`);
    this.hopId = hopId;
  }

  /** Number of routable broadcasts. */
  get broadcasts(): number {
    return this.#routes.size;
  }

  /** Number of shared upstream track copies. */
  get sharedTracks(): number {
    return this.#tracks.size;
  }

  /** Adds (or refreshes) `source`'s route to `path`. */
  announce(path: string, source: RouteSource, hops: readonly number[], cost = 0): void {
    const key = normalizePath(path);
    const routes = (this.#routes.get(key) ?? []).filter((r) => r.source !== source);
    routes.push({ source, hops: [...hops], cost, order: this.#order++ });
    routes.sort(compareRoutes);
    this.#routes.set(key, routes);
    this.#notify(key);
  }

  /** Removes `source`'s route to `path`. */
  unannounce(path: string, source: RouteSource): void {
    const key = normalizePath(path);
    const routes = this.#routes.get(key);
    if (routes === undefined) return;
    const left = routes.filter((r) => r.source !== source);
    if (left.length === routes.length) return;
    if (left.length === 0) this.#routes.delete(key);
    else this.#routes.set(key, left);
    this.#notify(key);
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
      if (best !== undefined) out.push({ path, active: true, hops: best.hops });
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
    const watcher: Watcher = { prefix: normalizePath(prefix), exclude, listener, visible: new Set(initial.map((e) => e.path)) };
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
   * of a track share one upstream subscription, made on the best route that does not lead back
   * to the requester; `release` drops this reader's share, and the last one cancels upstream.
   */
  subscribe(path: string, track: string, priority: number, requester: RouteSource | undefined): OriginSubscription {
    const key = trackKey(normalizePath(path), track);
    let shared = this.#tracks.get(key);
    if (shared !== undefined && (shared.upstream.track.closed || shared.source === requester)) {
      // An ended copy cannot serve a new reader; a copy fed by the requester itself would loop.
      if (shared.upstream.track.closed) this.#tracks.delete(key);
      shared = undefined;
    }
    if (shared === undefined) {
      const route = bestRoute(this.routes(path), requester);
      if (route === undefined) return { ok: false, reason: "not-found" };
      const upstream = route.source.subscribeUpstream(normalizePath(path), track, priority);
      if (upstream === undefined) return { ok: false, reason: "unavailable" };
      shared = { upstream, source: route.source, refs: 0 };
      if (!this.#tracks.has(key)) this.#tracks.set(key, shared);
    }
    const entry = shared;
    entry.refs += 1;
    let released = false;
    return {
      ok: true,
      track: entry.upstream.track,
      release: () => {
        if (released) return;
        released = true;
        entry.refs -= 1;
        if (entry.refs > 0) return;
        entry.upstream.cancel();
        if (this.#tracks.get(key) === entry) this.#tracks.delete(key);
      },
    };
  }

  /** The shared copy of a track currently subscribed upstream, if any (HTTP fetch reads it). */
  cachedTrack(path: string, track: string): Track | undefined {
    return this.#tracks.get(trackKey(normalizePath(path), track))?.upstream.track;
  }

  #notify(path: string): void {
    const routes = this.#routes.get(path) ?? [];
    for (const watcher of [...this.#watchers]) {
      if (!this.#watchers.has(watcher)) continue;
      if (stripPathPrefix(watcher.prefix, path) === undefined) continue;
      const best = bestRoute(routes, watcher.exclude);
      const was = watcher.visible.has(path);
      if (best !== undefined && !was) {
        watcher.visible.add(path);
        watcher.listener({ path, active: true, hops: best.hops });
      } else if (best === undefined && was) {
        watcher.visible.delete(path);
        watcher.listener({ path, active: false, hops: [] });
      }
    }
  }
}

function trackKey(path: string, track: string): string {
  return `${path}\u0000${track}`;
}
