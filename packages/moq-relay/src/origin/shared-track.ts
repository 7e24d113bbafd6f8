import { ResumeTrack, type Boundary, type Track, type TrackTerminal } from "@handoff/moq-resume";
import type { Clock } from "@handoff/seqlog";
import { bestRouteAvoiding, type Route, type RouteSource, type UpstreamTrack } from "./route.js";

/** Why a track moved to another upstream copy. */
export type MoveReason =
  /** The first copy. */
  | "first"
  /** The copy's route died (session gone, copy failed after delivering): the best remaining route. */
  | "failover"
  /** The copy's route is draining (GOAWAY) or was withdrawn while its copy lives: a graceful move. */
  | "handover";

/** A track moved from one source to another (for metrics and logs). */
export interface TrackMove {
  /** The broadcast's path. */
  readonly path: string;
  /** The track's name. */
  readonly track: string;
  /** Why it moved. */
  readonly reason: MoveReason;
  /** Source id of the previous copy (undefined for the first). */
  readonly from: number | undefined;
  /** Source id of the new copy. */
  readonly to: number;
  /** Where the new copy starts (undefined: live edge). */
  readonly boundary: Boundary | undefined;
}

/** What a shared track needs from the origin that holds it. */
export interface SharedHost {
  /** The relay's clock, which the resumed track reads. */
  readonly clock: Clock;
  /** The routes to `path`, best first. */
  routes(path: string): readonly Route[];
  /** A copy started or changed (logs, metrics). */
  moved(move: TrackMove): void;
  /** The track is over (finished, failed, or released): forget it. */
  ended(shared: SharedTrack): void;
  /** The last reader left: the host lets it linger (a reader may come back) or releases it. */
  idle(shared: SharedTrack): void;
}

interface Copy {
  readonly upstream: UpstreamTrack;
  readonly source: RouteSource;
  /** The group it was asked to start at (undefined: the live edge). */
  readonly asked: number | undefined;
  /** Stops listening for the copy's end (its groups and frames wake only the resumed track). */
  unwatch: () => void;
}

/**
 * One track as every downstream reader of this relay sees it: a resumed track fed by one upstream
 * copy at a time. When the copy's route dies the best remaining route takes over at the first
 * missing group (or mid-group, frame-precisely); when it drains, the track moves before the old
 * route closes. Readers never see the change.
 */
export class SharedTrack {
  /** What the readers read. */
  readonly resume: ResumeTrack;
  readonly #host: SharedHost;
  /** Requesting sources with their reader counts: the track is never routed through them. */
  readonly #requesters = new Map<RouteSource | undefined, number>();
  #copy: Copy | undefined;
  #ended = false;

  constructor(
    /** Normalized broadcast path. */
    readonly path: string,
    /** Track name. */
    readonly name: string,
    /** Priority asked upstream. */
    readonly priority: number,
    host: SharedHost,
    cacheGroups: number,
  ) {
    this.#host = host;
    this.resume = new ResumeTrack({ name: `${path}/${name}`, clock: host.clock, maxGroups: cacheGroups, info: { priority } });
  }

  /** The source of the current copy. */
  get source(): RouteSource | undefined {
    return this.#copy?.source;
  }

  /** The copy being filled now. */
  get copy(): Track | undefined {
    return this.#copy?.upstream.track;
  }

  /**
   * True when group `start` was already produced but no copy holds it: a reader asking for it
   * cannot be served from this track (it started later, or the group was evicted).
   */
  misses(start: number): boolean {
    const latest = this.resume.list.latest();
    return latest !== undefined && start <= latest && this.resume.holders(start).length === 0;
  }

  /** True once the track ended or was released. */
  get ended(): boolean {
    return this.#ended || this.resume.terminal() !== undefined;
  }

  /**
   * Subscribes the first copy on the best route that avoids `requester`, from group `from` when
   * the first reader asked for an explicit start (a sibling relay resuming a track asks for the
   * first group it misses), else at the live edge: "not-found" without such a route,
   * "unavailable" when its source refused.
   */
  start(requester: RouteSource | undefined, from?: number): "ok" | "not-found" | "unavailable" {
    const route = bestRouteAvoiding(this.#host.routes(this.path), (s) => s === requester);
    if (route === undefined) return "not-found";
    return this.#moveTo(route, "first", from) ? "ok" : "unavailable";
  }

  /** A reader coming from `requester` joins; returns its release (the last one cancels upstream). */
  join(requester: RouteSource | undefined): () => void {
    this.#requesters.set(requester, (this.#requesters.get(requester) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#requesters.get(requester) ?? 1) - 1;
      if (left > 0) this.#requesters.set(requester, left);
      else this.#requesters.delete(requester);
      if (this.#requesters.size === 0) this.#host.idle(this);
    };
  }

  /** Ends the track and cancels its upstream copy (it lingered unread long enough). */
  release(): void {
    if (this.#ended) return;
    const copy = this.#copy;
    this.#end(() => {
      copy?.upstream.cancel();
    });
  }

  /**
   * Re-evaluates the route after the table changed: a copy whose route drains or was withdrawn
   * moves to the best live route, if there is one. A healthy route is kept (no churn).
   */
  reroute(): void {
    const copy = this.#copy;
    if (copy === undefined || this.ended) return;
    const routes = this.#host.routes(this.path);
    const current = routes.find((r) => r.source === copy.source);
    if (current !== undefined && current.draining !== true) return;
    const best = this.#best(routes, copy.source);
    if (best === undefined || best.draining === true) return;
    this.#moveTo(best, "handover");
  }

  #best(routes: readonly Route[], not: RouteSource): Route | undefined {
    return bestRouteAvoiding(routes, (s) => s === not || this.#requesters.has(s));
  }

  #moveTo(route: Route, reason: MoveReason, from?: number): boolean {
    const old = this.#copy;
    let boundary: Boundary | undefined;
    let placed: Boundary | undefined;
    const upstream = route.source.subscribeUpstream(this.path, this.name, this.priority, (track) => {
      boundary = this.resume.takeover(track).boundary;
      // The first copy's segment is unbounded; its upstream still starts where the reader asked.
      placed = boundary ?? (from === undefined ? undefined : { group: from, frame: 0 });
      return placed;
    });
    if (upstream === undefined) return false;
    const copy: Copy = { upstream, source: route.source, asked: placed?.group, unwatch: noop };
    this.#copy = copy;
    copy.unwatch = upstream.track.onEnd((terminal) => {
      this.#onCopyEnd(copy, terminal);
    });
    if (old !== undefined) {
      old.unwatch();
      // A live old copy finishes what it owes up to the boundary (the open group, if the new
      // copy continues it) and stops; a dead one is just let go.
      const last = boundary === undefined ? undefined : boundary.frame > 0 ? boundary.group : boundary.group - 1;
      if (reason === "handover" && last !== undefined && last >= 0) old.upstream.cap(last);
      else old.upstream.cancel();
    }
    this.#host.moved({ path: this.path, track: this.name, reason, from: old?.source.id, to: route.source.id, boundary });
    return true;
  }

  #onCopyEnd(copy: Copy, terminal: TrackTerminal): void {
    if (copy !== this.#copy || this.ended) return;
    // A copy that produced a group and then died is a failover, not a refusal.
    const delivered = copy.upstream.track.latest !== undefined;
    switch (terminal.kind) {
      case "finished":
        this.#end(() => {
          this.resume.finish();
        });
        return;
      case "aborted":
        // A refusal (nothing delivered) is the answer; a copy that served and then failed is a
        // dead route.
        if (delivered && this.#requesters.size > 0 && this.#failover(copy)) return;
        this.#end(() => {
          this.resume.abort(terminal.reason);
        });
        return;
      case "dropped":
        // A lingering track nobody reads is not worth a new upstream subscription.
        if (this.#requesters.size > 0 && this.#failover(copy)) return;
        this.#end(() => {
          this.resume.drop();
        });
        return;
      default: {
        const never: never = terminal;
        throw new Error(`unexpected terminal ${JSON.stringify(never)}`);
      }
    }
  }

  #failover(dead: Copy): boolean {
    const route = this.#best(this.#host.routes(this.path), dead.source);
    // A copy that delivered nothing leaves no boundary: the next one starts where that one was to
    // start (the group its SUBSCRIBE_START named, else where it was asked), not at the live edge,
    // which may be past groups produced while the readers waited for them (resume invariant 2).
    const from = dead.upstream.track.latest === undefined ? (dead.upstream.startedAt ?? dead.asked) : undefined;
    return route !== undefined && this.#moveTo(route, "failover", from);
  }

  #end(finish: () => void): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#copy?.unwatch();
    this.#copy = undefined;
    finish();
    this.#host.ended(this);
  }
}

function noop(): void {
  // Replaced once the copy is watched.
}
