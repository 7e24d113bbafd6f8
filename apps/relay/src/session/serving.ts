import type { GroupReader } from "@handoff/moq-resume";
import { joinPath, type LiteStreamReader, type Subscribe } from "@handoff/moq-resume/lite";
import { allowed } from "../auth/permissions.js";
import type { StreamId } from "../transport/index.js";
import { refuse, turnDown, type SessionContext } from "./context.js";
import type { Handler } from "./handler.js";
import { RelayCode } from "./limits.js";
import { OutboundGroup } from "./outbound-group.js";
import { compareScheduled, victim } from "./scheduler.js";
import { ServedSubscription } from "./served-subscription.js";
import { SubscribeResponder } from "./subscribe-response.js";

/**
 * The subscribe-serving side of a session: the peer's SUBSCRIBEs served from the origin's shared
 * track copies, and the scheduling of their groups onto outbound streams.
 */
export class Serving {
  readonly #ctx: SessionContext;
  readonly #served = new Set<ServedSubscription>();
  readonly #outbound: OutboundGroup[] = [];
  readonly #owner = new Map<OutboundGroup, ServedSubscription>();
  readonly #responders = new Map<ServedSubscription, SubscribeResponder>();
  #groupOrder = 0;
  #flushing = false;

  constructor(ctx: SessionContext) {
    this.#ctx = ctx;
  }

  /** Subscriptions being served. */
  get subscriptions(): number {
    return this.#served.size;
  }

  /** Group streams queued or being written. */
  get outboundGroups(): number {
    return this.#outbound.length;
  }

  /** Bytes encoded in group streams the framing has not taken yet. */
  get pendingBytes(): number {
    let total = 0;
    for (const out of this.#outbound) total += out.pendingBytes;
    return total;
  }

  /** Serves a SUBSCRIBE that came on accepted stream `id`, or refuses it. */
  serve(id: StreamId, reader: LiteStreamReader, msg: Subscribe): void {
    const ctx = this.#ctx;
    const writer = ctx.writer;
    const version = ctx.version;
    if (writer === undefined || version === undefined) return;
    const path = joinPath(ctx.root, msg.broadcast);
    if (!allowed(ctx.permissions.subscribe, path)) {
      turnDown(ctx, id, reader, RelayCode.Unauthorized);
      return;
    }
    if (this.#served.size >= ctx.limits.maxSubscriptions) {
      turnDown(ctx, id, reader, RelayCode.TooMany);
      return;
    }
    const routed = ctx.origin.subscribe(path, msg.track, msg.priority, ctx.self, msg.startGroup);
    if (!routed.ok) {
      turnDown(ctx, id, reader, RelayCode.NotFound);
      return;
    }
    const entry: Handler = { kind: "subscribe-serve", reader, sub: undefined };
    ctx.handlers.set(id, entry);
    const responder = new SubscribeResponder(ctx.io, writer, version, id, msg);
    responder.accepted();
    const sub = new ServedSubscription(id, msg, routed.track, routed.release, ctx.self);
    this.#responders.set(sub, responder);
    entry.sub = sub;
    this.#served.add(sub);
    ctx.stats.subscription(1);
    sub.pump();
  }

  /** Schedules a new group of `sub`; over the limit, the least wanted group is skipped. */
  startGroup(sub: ServedSubscription, group: GroupReader): void {
    const ctx = this.#ctx;
    const version = ctx.version;
    if (version === undefined) return;
    this.#responders.get(sub)?.group(group.sequence);
    const out = new OutboundGroup(version, sub.id, group, () => sub.priority, this.#groupOrder++, ctx.stats);
    sub.openGroups += 1;
    this.#outbound.push(out);
    this.#owner.set(out, sub);
    while (this.#outbound.length > ctx.limits.maxOutboundGroups) {
      const worst = victim(this.#outbound);
      if (worst === undefined) break;
      ctx.stats.skipped();
      worst.abandon(ctx.io, RelayCode.Skipped);
      this.#retire(worst);
    }
  }

  /** Tells the peer (SUBSCRIBE_DROP, lite-03+) that group `sequence` of `sub` will not come. */
  dropped(sub: ServedSubscription, sequence: number): void {
    this.#ctx.stats.dropped?.();
    this.#responders.get(sub)?.dropped(sequence, RelayCode.Lost);
  }

  /** FINs the subscribe stream of `sub` once its track ended and every group owed is sent. */
  maybeFinish(sub: ServedSubscription): void {
    if (!sub.ended || sub.openGroups > 0 || !this.#served.has(sub)) return;
    // Every group owed is sent: FIN the subscribe stream, which ends the subscription cleanly.
    const ctx = this.#ctx;
    this.#served.delete(sub);
    ctx.stats.subscription(-1);
    sub.close();
    ctx.handlers.delete(sub.streamId);
    this.#responders.get(sub)?.finished();
    this.#responders.delete(sub);
    ctx.io.write(sub.streamId, new Uint8Array(0), true);
  }

  /** Ends a served subscription: FIN (code undefined) or reset with `code`; its groups stop. */
  end(sub: ServedSubscription, code: number | undefined): void {
    if (!this.#served.delete(sub)) return;
    this.#responders.delete(sub);
    const ctx = this.#ctx;
    ctx.stats.subscription(-1);
    sub.close();
    ctx.handlers.delete(sub.streamId);
    for (const [out, owner] of [...this.#owner]) {
      if (owner !== sub) continue;
      out.abandon(ctx.io, RelayCode.Cancel);
      this.#retire(out);
    }
    if (code === undefined) ctx.io.write(sub.streamId, new Uint8Array(0), true);
    else refuse(ctx.io, sub.streamId, true, code);
  }

  /** The peer reset or stopped one of our group streams: drop the group, send the others. */
  abandon(out: OutboundGroup, code: number): void {
    out.abandon(this.#ctx.io, code);
    this.#retire(out);
    this.flush();
  }

  /** Writes queued groups in schedule order as far as credit and stream limits allow. */
  flush(): void {
    const ctx = this.#ctx;
    if (ctx.closed || this.#flushing) return;
    this.#flushing = true;
    try {
      if (this.#outbound.length > 1) this.#outbound.sort(compareScheduled);
      let streamsLeft = true;
      for (const out of [...this.#outbound]) {
        if (out.streamId === undefined && !streamsLeft) continue;
        const result = out.pump(ctx.io);
        if (out.streamId !== undefined && !ctx.handlers.has(out.streamId)) ctx.handlers.set(out.streamId, { kind: "group-out", group: out });
        if (result === "no-stream") streamsLeft = false;
        if (result === "done") this.#retire(out);
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** Session over: closes every subscription without writing anything. */
  teardown(): void {
    for (const sub of [...this.#served]) {
      sub.close();
      this.#ctx.stats.subscription(-1);
    }
    this.#served.clear();
    this.#responders.clear();
    this.#outbound.length = 0;
    this.#owner.clear();
  }

  #retire(out: OutboundGroup): void {
    const at = this.#outbound.indexOf(out);
    if (at >= 0) this.#outbound.splice(at, 1);
    if (out.streamId !== undefined) this.#ctx.handlers.delete(out.streamId);
    const owner = this.#owner.get(out);
    this.#owner.delete(out);
    if (owner !== undefined) {
      owner.openGroups -= 1;
      this.maybeFinish(owner);
    }
  }
}
