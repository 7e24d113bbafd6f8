import { decodeDatagram, hasExtendedSubscribe, hasFrameBounds, hasTrackStream, stripPathPrefix, type Subscribe } from "@handoff/moq-resume/lite";
import type { PlaceCopy, UpstreamTrack } from "../origin/index.js";
import type { StreamId } from "@handoff/qmux";
import { refuse, type SessionContext, type StreamFate } from "../context/index.js";
import { RelayCode } from "../rules/index.js";
import type { InboundGroup } from "./inbound-group.js";
import { UpstreamSubscription } from "./upstream-subscription.js";

/** The roles of upstream streams: our SUBSCRIBEs on the peer, and the peer's group streams. */
export type UpstreamRole = { readonly kind: "upstream"; readonly sub: UpstreamSubscription } | { readonly kind: "group-in"; readonly group: InboundGroup };

/** An upstream subscription made: its track for the origin, and the SUBSCRIBE stream's role for the dispatcher to file. */
export interface UpstreamOpened {
  readonly upstream: UpstreamTrack;
  readonly stream: StreamId;
  readonly role: UpstreamRole;
}

/**
 * The subscriptions a session makes on its peer (when the peer publishes what the origin
 * routes to it), and the groups the peer sends for them.
 */
export class Upstreams {
  readonly #ctx: SessionContext;
  readonly #subs = new Map<number, UpstreamSubscription>();
  #nextId = 0;

  constructor(ctx: SessionContext) {
    this.#ctx = ctx;
  }

  /** Live upstream subscriptions on this peer. */
  get count(): number {
    return this.#subs.size;
  }

  /**
   * Subscribes to `track` of `path` on the peer from where `place` says; undefined when it
   * cannot (limits, scope, closed), and then `place` is not called. The caller files the
   * SUBSCRIBE stream's role (no event can come on it before the peer reads the SUBSCRIBE).
   */
  subscribe(path: string, track: string, priority: number, place: PlaceCopy): UpstreamOpened | undefined {
    const ctx = this.#ctx;
    const version = ctx.version;
    const writer = ctx.writer;
    if (ctx.closed || version === undefined || writer === undefined) return undefined;
    if (this.#subs.size >= ctx.limits.maxUpstream) return undefined;
    const suffix = stripPathPrefix(ctx.root, path);
    if (suffix === undefined) return undefined;
    const streamId = ctx.io.open(true);
    if (streamId === undefined) return undefined;
    const id = this.#nextId++;
    const sub = new UpstreamSubscription(id, streamId, version, track, priority, ctx.limits.trackCacheGroups, ctx.origin.clock);
    sub.onDone = () => {
      if (this.#subs.get(id) === sub) this.#subs.delete(id);
    };
    this.#subs.set(id, sub);
    const boundary = place(sub.track);
    sub.continuation = boundary !== undefined && boundary.frame > 0 ? boundary : undefined;
    const startGroup = boundary?.from ?? boundary?.group;
    // lite-06 asks for exactly the frames the relay lacks of the group it continues; older
    // versions get the group from its first frame and the held ones are skipped on arrival. When
    // older groups are still incomplete the request starts at the oldest of them, whole.
    const startFrame = hasFrameBounds(version) && boundary !== undefined && boundary.from === undefined && boundary.frame > 0 ? boundary.frame : undefined;
    const frames = startFrame === undefined ? {} : { startFrame };
    const msg: Subscribe = {
      type: "subscribe",
      id,
      broadcast: suffix,
      track,
      priority,
      ordered: false,
      maxLatency: 0,
      startGroup,
      endGroup: undefined,
      ...frames,
    };
    ctx.io.send(streamId, writer.encodeAll([{ type: "stream_header", kind: "subscribe" }, msg]), false);
    ctx.drain();
    // Both are called from other connections' events (the last reader left, the track moved):
    // contained to this session.
    const cancel = (): void => {
      ctx.contain("upstream-cancel", () => {
        if (ctx.closed) return;
        sub.cancel(ctx.io);
        ctx.drain();
      });
    };
    const upstream: UpstreamTrack = {
      track: sub.track,
      get startedAt() {
        return sub.startedAt;
      },
      cancel,
      cap: (last) => {
        // A publisher that ended the subscription already said where it stops.
        if (ctx.closed || sub.cancelled || sub.ended) return;
        if (!hasExtendedSubscribe(version) || !this.#subs.has(id)) {
          cancel();
          return;
        }
        ctx.contain("upstream-cap", () => {
          ctx.io.send(
            streamId,
            writer.encode({ type: "subscribe_update", priority, ordered: false, maxLatency: 0, startGroup, endGroup: last, ...frames }),
            false,
          );
          ctx.drain();
        });
      },
    };
    return { upstream, stream: streamId, role: { kind: "upstream", sub } };
  }

  /** Bytes on the SUBSCRIBE stream `id` of `sub`; "end" when the subscription's stream is over. */
  receive(id: StreamId, sub: UpstreamSubscription, bytes: Uint8Array, fin: boolean): StreamFate {
    const ctx = this.#ctx;
    const result = sub.receive(bytes, fin);
    if (!result.over) return "keep";
    // A copy still owing groups stays findable by their headers until they are in.
    if (result.owing !== true) this.#subs.delete(sub.id);
    if (result.errorCode !== undefined) refuse(ctx.io, id, true, result.errorCode);
    else if (!sub.cancelled) ctx.io.send(id, new Uint8Array(0), true);
    return "end";
  }

  /** The peer reset (or stopped) the SUBSCRIBE stream `id` of `sub`: the stream's role is over. */
  reset(id: StreamId, sub: UpstreamSubscription, code: number, stopSending: boolean): void {
    const ctx = this.#ctx;
    this.#subs.delete(sub.id);
    sub.reset(code);
    if (!stopSending) ctx.io.reset(id, code);
  }

  /** Bytes on the peer's group stream `id`, filed into the track of the subscription it names; "end" when the stream is done with. */
  receiveGroup(id: StreamId, group: InboundGroup, bytes: Uint8Array, fin: boolean): StreamFate {
    const ctx = this.#ctx;
    const result = group.receive(
      bytes,
      fin,
      (sid) => this.#subs.get(sid),
      (n) => {
        ctx.stats.frame("in", n);
      },
    );
    if (result === "more") return "keep";
    if (result === "ignore") ctx.io.stopSending(id, RelayCode.Cancel);
    else if (result === "oversized") {
      // STOP_SENDING asks the publisher to reset the stream: the rest of the group is not wanted.
      ctx.stats.oversized?.();
      ctx.io.stopSending(id, RelayCode.TooLarge);
    } else if (result !== "done") ctx.io.stopSending(id, result.error);
    else ctx.stats.group("in");
    return "end";
  }

  /**
   * A datagram from the peer (lite-05+): a single-frame group of the subscription it names,
   * filed like a group stream that came whole. Unreliable input is dropped quietly when it cannot
   * be used: undecodable, an unknown or ended subscription, a group the copy already holds.
   */
  receiveDatagram(bytes: Uint8Array): void {
    const ctx = this.#ctx;
    const version = ctx.version;
    if (version === undefined || !hasTrackStream(version)) return;
    const decoded = decodeDatagram(bytes, version);
    if (!decoded.ok) return;
    const msg = decoded.value;
    const sub = this.#subs.get(msg.subscribe);
    if (sub === undefined) return;
    const group = sub.datagram(msg.sequence, msg.payload, msg.timestamp, ctx.limits.maxGroupBytes, ctx.memory);
    if (group === undefined) return;
    ctx.stats.frame("in", msg.payload.length);
    ctx.stats.group("in");
  }

  /** Time passes (the session's tick): copies owing groups long after their FIN give up on them. */
  tick(nowMs: number): void {
    for (const sub of [...this.#subs.values()]) sub.tick(nowMs);
  }

  /** Session over: the tracks are dropped without writing anything. */
  teardown(): void {
    for (const sub of this.#subs.values()) sub.drop();
    this.#subs.clear();
  }
}
