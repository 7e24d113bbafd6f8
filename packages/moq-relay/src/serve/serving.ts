import type { GroupReader } from "@handoff/moq-resume";
import { encodeDatagram, hasTrackStream, joinPath, type LiteStreamReader, type Subscribe } from "@handoff/moq-resume/lite";
import { allowed, RelayCode } from "../rules/index.js";
import type { RouteSource } from "../origin/index.js";
import type { StreamId } from "@handoff/qmux";
import { type IgnoreRole, refuse, type RoleChanges, type SessionContext, type StreamFate, turnDown } from "../context/index.js";
import { OutboundGroup, type PumpResult } from "./outbound-group.js";
import { ReadyLanes } from "./ready-lanes.js";
import { Lane, victim } from "./scheduler.js";
import { fieldFlag, FlagList } from "./flag-list.js";
import { ServedSubscription, type ServeHost } from "./served-subscription.js";
import { SubscribeResponder } from "./subscribe-response.js";

/** The roles of served streams: the peer's SUBSCRIBE streams and our group streams for them. */
export type ServingRole =
  | { readonly kind: "subscribe-serve"; readonly reader: LiteStreamReader; sub: ServedSubscription | undefined }
  | { readonly kind: "group-out"; readonly group: OutboundGroup };

/** The dirty list's membership flag. */
const DIRTY = fieldFlag("dirty");

/**
 * The subscribe-serving side of a session: the peer's SUBSCRIBEs served from the origin's shared
 * track copies, and the scheduling of their groups onto outbound streams. Scheduling costs what
 * changed, not the backlog: groups waiting for a stream are kept in send order ({@link ReadyLanes}),
 * and a flush pumps only the streams that gained data (a kick of their subscription) or room (a
 * writable event), then opens waiting groups while the peer allows streams.
 */
export class Serving implements ServeHost {
  readonly #ctx: SessionContext;
  /** Where the roles of group streams opened and retired by a flush are filed (the dispatcher). */
  readonly #roles: RoleChanges<ServingRole>;
  readonly #served = new Set<ServedSubscription>();
  readonly #lanes = new Map<ServedSubscription, Lane<OutboundGroup>>();
  readonly #ready = new ReadyLanes<Lane<OutboundGroup>>();
  /** Group streams queued or being written (each is in its subscription's lane, `owner` set). */
  #outbound = 0;
  /** Opened groups to pump at the next flush. */
  readonly #dirty = new FlagList<OutboundGroup>(DIRTY);
  /**
   * Groups whose header a holding flush kept back: dirty for the turn's flush. A list beside the
   * dirty list, not a state the dirty loop skips: skipping held groups in the set made the
   * 1,000-subscriber bench deliver 21% with 158k groups skipped, against 50% and none this way.
   */
  readonly #held: OutboundGroup[] = [];
  readonly #responders = new Map<ServedSubscription, SubscribeResponder>();
  /** The peer's uni stream limit refused an open; cleared by streams-available. */
  #streamsBlocked = false;
  /** Groups wait for the peer's stream limit: unordered subscriptions get the newest first. */
  #contended = false;
  #flushing = false;
  /** A flush is deferred already (kicks of one turn share it). */
  #flushQueued = false;
  readonly #defer: (flush: () => void) => void;
  /** The deferred flush and its contained work, made once (closures per flush were garbage per frame per subscriber). */
  readonly #deferred = (): void => {
    this.#flushQueued = false;
    this.#ctx.contain("flush", this.#flushAndDrain);
  };
  readonly #flushAndDrain = (): void => {
    this.flush();
    // May run inside another session's drain (origin callbacks); the drain is re-entrant-safe.
    this.#ctx.drain();
  };
  #pumps = 0;

  /**
   * @param defer runs `flush` later in this turn of the event loop, so that the kicks a turn
   *   brings cost one flush (the session's own `defer` option)
   */
  constructor(ctx: SessionContext, roles: RoleChanges<ServingRole>, defer: (flush: () => void) => void) {
    this.#ctx = ctx;
    this.#roles = roles;
    this.#defer = defer;
  }

  /** The session whose peer is served, as the origin knows it. */
  get source(): RouteSource {
    return this.#ctx.source;
  }

  /** Subscriptions being served. */
  get subscriptions(): number {
    return this.#served.size;
  }

  /** Group streams queued or being written. */
  get outboundGroups(): number {
    return this.#outbound;
  }

  /** Group pumps so far (each is one visit of one stream): what a flush costs, for tests. */
  get pumps(): number {
    return this.#pumps;
  }

  /** Bytes encoded in group streams the framing has not taken yet. */
  get pendingBytes(): number {
    let total = 0;
    for (const lane of this.#lanes.values()) for (const out of lane.items) total += out.pendingBytes;
    return total;
  }

  /**
   * Serves a SUBSCRIBE that came on accepted stream `id`, or refuses it: returns the stream's role
   * for the dispatcher to file ("keep" before the session is ready). A served one sends nothing
   * until {@link begin}, once its role is filed (its first pump may already end it).
   */
  serve(id: StreamId, reader: LiteStreamReader, msg: Subscribe): ServingRole | IgnoreRole | StreamFate {
    const ctx = this.#ctx;
    const writer = ctx.writer;
    const version = ctx.version;
    if (writer === undefined || version === undefined) return "keep";
    const path = joinPath(ctx.root, msg.broadcast);
    if (!allowed(ctx.permissions.subscribe, path)) return turnDown(ctx.io, id, reader, RelayCode.Unauthorized);
    if (this.#served.size >= ctx.limits.maxSubscriptions) return turnDown(ctx.io, id, reader, RelayCode.TooMany);
    const routed = ctx.origin.subscribe(path, msg.track, msg.priority, ctx.source, msg.startGroup);
    if (!routed.ok) return turnDown(ctx.io, id, reader, RelayCode.NotFound);
    const entry: ServingRole = { kind: "subscribe-serve", reader, sub: undefined };
    const responder = new SubscribeResponder(ctx.io, writer, version, id, msg);
    responder.accepted();
    const sub = new ServedSubscription(id, msg, routed.track, routed.release, this);
    this.#responders.set(sub, responder);
    this.#lanes.set(sub, new Lane(msg.priority, msg.ordered));
    entry.sub = sub;
    this.#served.add(sub);
    ctx.stats.subscription(1);
    return entry;
  }

  /** Starts sending what `sub` (served by {@link serve}, its role filed) has now. */
  begin(sub: ServedSubscription): void {
    sub.pump();
  }

  // --- ServeHost: what the served subscriptions ask of the session ---

  /** @inheritdoc */
  startGroup(sub: ServedSubscription, group: GroupReader): void {
    this.#schedule(sub, group);
    // A new group flushes at once, without waiting for the turn's end: a turn that brings more
    // groups than the track's cache holds (a stalled process catching up) would otherwise have
    // them evicted before they were written. A header with no frame yet is held for the turn's
    // flush, so that it leaves with the first frames in one message.
    this.flush(true);
    this.#ctx.drain();
  }

  /** @inheritdoc */
  finished(sub: ServedSubscription): void {
    this.maybeFinish(sub);
  }

  /** @inheritdoc */
  failed(sub: ServedSubscription, code: number): void {
    this.end(sub, code);
    this.#ctx.drain();
  }

  /** @inheritdoc */
  dropped(sub: ServedSubscription, sequence: number): void {
    this.#tellDropped(sub, sequence);
    this.#ctx.drain();
  }

  /** @inheritdoc */
  kick(sub: ServedSubscription): void {
    this.#wake(sub);
    this.#queueFlush();
  }

  /** Flushes once later in this turn (kicks and held headers of one turn share it). */
  #queueFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    this.#defer(this.#deferred);
  }

  /** @inheritdoc */
  contain(where: string, fn: () => void): void {
    this.#ctx.contain(where, fn);
  }

  // --- scheduling ---

  /** Schedules a new group of `sub`; over the limit, the least wanted group is skipped. */
  #schedule(sub: ServedSubscription, group: GroupReader): void {
    const ctx = this.#ctx;
    const version = ctx.version;
    const lane = this.#lanes.get(sub);
    if (version === undefined || lane === undefined) return;
    this.#responders.get(sub)?.group(group.sequence);
    if (this.#asDatagram(sub, group)) return;
    const out = new OutboundGroup(version, sub.id, group, ctx.stats, sub.frameStart(group.sequence));
    sub.openGroups += 1;
    this.#sync(sub, lane);
    lane.add(out);
    this.#ready.add(lane);
    out.owner = sub;
    this.#outbound += 1;
    while (this.#outbound > ctx.limits.maxOutboundGroups) {
      const worst = victim(this.#lanes.values());
      if (worst === undefined) break;
      ctx.stats.skipped();
      // An opened group's reset tells the peer; one that never had a stream needs SUBSCRIBE_DROP.
      if (worst.streamId === undefined) {
        const owner = worst.owner;
        if (owner !== undefined) this.#responders.get(owner)?.dropped(worst.sequence, RelayCode.Skipped);
      }
      worst.abandon(ctx.io, RelayCode.Skipped);
      this.#retire(worst);
    }
  }

  /**
   * Sends a group that arrived as a datagram as one too, where the peer takes datagrams (lite-05+
   * over qmux-01/02, and this size); false leaves it to a group stream (older versions, qmux-00,
   * the legacy framing, a datagram too large for the peer).
   */
  #asDatagram(sub: ServedSubscription, group: GroupReader): boolean {
    const ctx = this.#ctx;
    const version = ctx.version;
    if (version === undefined || !hasTrackStream(version)) return false;
    const frame = group.datagramFrame();
    if (frame === undefined) return false;
    const bytes = encodeDatagram({ type: "datagram", subscribe: sub.id, sequence: group.sequence, timestamp: frame.timestamp ?? 0, payload: frame.payload }, version);
    if (ctx.io.datagram?.(bytes) !== true) return false;
    group.close();
    ctx.stats.group("out");
    ctx.stats.frame("out", frame.payload.length);
    return true;
  }

  /** `sub`'s track changed: its streams waiting for a frame are pumped at the next flush. */
  #wake(sub: ServedSubscription): void {
    const lane = this.#lanes.get(sub);
    if (lane === undefined) return;
    this.#sync(sub, lane);
    for (let out = lane.idle.take(); out !== undefined; out = lane.idle.take()) this.#dirty.add(out);
  }

  /** The stream of group `out` has room again: it is pumped at the next flush. */
  writable(out: OutboundGroup): void {
    this.#dirty.add(out);
  }

  /** The peer raised its stream limit: waiting groups may open at the next flush. */
  streamsAvailable(): void {
    this.#streamsBlocked = false;
  }

  /** Tells the peer (SUBSCRIBE_DROP, lite-03+) that group `sequence` of `sub` will not come. */
  #tellDropped(sub: ServedSubscription, sequence: number): void {
    this.#ctx.stats.dropped?.();
    this.#responders.get(sub)?.dropped(sequence, RelayCode.Lost);
  }

  /** FINs the subscribe stream of `sub` once its track ended and every group owed is sent. */
  maybeFinish(sub: ServedSubscription): void {
    if (!sub.ended || sub.openGroups > 0 || !this.#served.has(sub)) return;
    // Every group owed is sent: FIN the subscribe stream, which ends the subscription cleanly.
    const ctx = this.#ctx;
    this.#served.delete(sub);
    this.#forget(sub);
    ctx.stats.subscription(-1);
    sub.close();
    this.#roles.drop(sub.streamId);
    this.#responders.get(sub)?.finished();
    this.#responders.delete(sub);
    ctx.io.send(sub.streamId, new Uint8Array(0), true);
  }

  /** Ends a served subscription: FIN (code undefined) or reset with `code`; its groups stop. */
  end(sub: ServedSubscription, code: number | undefined): void {
    if (!this.#served.delete(sub)) return;
    this.#responders.delete(sub);
    const ctx = this.#ctx;
    ctx.stats.subscription(-1);
    sub.close();
    this.#roles.drop(sub.streamId);
    const lane = this.#lanes.get(sub);
    // Newest first: each removal is then at the end of the lane's sorted arrays, not a shift.
    for (const out of [...(lane?.items ?? [])].reverse()) {
      out.abandon(ctx.io, RelayCode.Cancel);
      this.#retire(out);
    }
    this.#forget(sub);
    if (code === undefined) ctx.io.send(sub.streamId, new Uint8Array(0), true);
    else refuse(ctx.io, sub.streamId, true, code);
  }

  /** The peer reset or stopped one of our group streams: drop the group, send the others. */
  abandon(out: OutboundGroup, code: number): void {
    out.abandon(this.#ctx.io, code);
    this.#retire(out);
    this.flush();
  }

  /**
   * Pumps the streams that gained data or room, then opens waiting groups in send order while the
   * peer allows streams. Visits nothing else, so its cost does not grow with the backlog.
   * `hold`: headers of new groups with no frame yet wait for the turn's flush (see {@link startGroup}).
   */
  flush(hold = false): void {
    const ctx = this.#ctx;
    if (ctx.closed || this.#flushing) return;
    this.#flushing = true;
    try {
      // A group dirtied again while pumping is taken (pumped) again.
      for (let out = this.#dirty.take(); out !== undefined; out = this.#dirty.take()) this.#after(out, this.#pump(out, hold));
      while (!this.#streamsBlocked) {
        const lane = this.#ready.peek();
        if (lane === undefined) {
          this.#contended = false;
          break;
        }
        const out = lane.next(this.#contended);
        if (out === undefined) {
          this.#ready.delete(lane);
          continue;
        }
        const result = this.#pump(out, hold);
        if (result === "no-stream") {
          this.#streamsBlocked = true;
          this.#contended = true;
          break;
        }
        lane.opened(out);
        if (out.streamId !== undefined) this.#roles.file(out.streamId, { kind: "group-out", group: out });
        if (lane.waiting === 0) this.#ready.delete(lane);
        else this.#ready.rotate(lane);
        this.#after(out, result);
      }
    } finally {
      this.#flushing = false;
    }
    if (this.#held.length === 0) return;
    // Added after the loops: the dirty list's loop would pump them again at once.
    for (const out of this.#held) this.#dirty.add(out);
    this.#held.length = 0;
    this.#queueFlush();
  }

  /** Session over: closes every subscription without writing anything. */
  teardown(): void {
    for (const sub of [...this.#served]) {
      sub.close();
      this.#ctx.stats.subscription(-1);
    }
    this.#served.clear();
    this.#responders.clear();
    this.#lanes.clear();
    this.#ready.clear();
    this.#dirty.clear();
    this.#held.length = 0;
    this.#outbound = 0;
  }

  #pump(out: OutboundGroup, hold: boolean): PumpResult {
    this.#pumps += 1;
    return out.pump(this.#ctx.io, hold);
  }

  /** Files `out` by what its pump achieved: done, waiting for a frame, or for room. */
  #after(out: OutboundGroup, result: PumpResult): void {
    switch (result) {
      case "done":
        this.#retire(out);
        return;
      case "idle": {
        const owner = out.owner;
        if (owner !== undefined) this.#lanes.get(owner)?.idle.add(out);
        return;
      }
      case "held":
        this.#held.push(out);
        return;
      case "blocked":
      case "no-stream":
        // A writable event (or streams-available) brings it back.
        return;
      default: {
        const never: never = result;
        throw new Error(`unexpected pump result ${String(never)}`);
      }
    }
  }

  /** Applies a SUBSCRIBE_UPDATE's priority and order to the lane of `sub`. */
  #sync(sub: ServedSubscription, lane: Lane<OutboundGroup>): void {
    if (lane.priority === sub.priority && lane.ordered === sub.ordered) return;
    lane.priority = sub.priority;
    lane.ordered = sub.ordered;
    if (lane.waiting > 0) this.#ready.add(lane);
  }

  #forget(sub: ServedSubscription): void {
    const lane = this.#lanes.get(sub);
    if (lane !== undefined) this.#ready.delete(lane);
    this.#lanes.delete(sub);
  }

  #retire(out: OutboundGroup): void {
    this.#dirty.delete(out);
    if (out.streamId !== undefined) this.#roles.drop(out.streamId);
    const owner = out.owner;
    out.owner = undefined;
    if (owner !== undefined) {
      this.#outbound -= 1;
      const lane = this.#lanes.get(owner);
      if (lane !== undefined) {
        lane.remove(out);
        if (lane.waiting === 0) this.#ready.delete(lane);
      }
      owner.openGroups -= 1;
      this.maybeFinish(owner);
    }
  }
}
