import {
  type Announce,
  type AnnounceRequest,
  DEFAULT_LIMITS,
  hasAnnounceIds,
  hasTrackStream,
  isLegacy,
  joinPath,
  LiteError,
  type LiteMessage,
  LiteStreamReader,
  pathParts,
  stripPathPrefix,
} from "@handoff/moq-resume/lite";
import { allowed, overlaps, RelayCode } from "../rules/index.js";
import type { AnnounceEvent } from "../origin/index.js";
import type { StreamId } from "@handoff/qmux";
import { refuse, type SessionContext, type StreamFate } from "../context/index.js";

/** The roles of announce streams: ours reading the peer's announces, the peer's being served. */
export type AnnounceRole =
  | { readonly kind: "announce-intake"; readonly reader: LiteStreamReader }
  | { readonly kind: "announce-serve"; readonly reader: LiteStreamReader; close: () => void };

/**
 * The announce side of a session: serving the peer's ANNOUNCE_REQUESTs from the origin, and
 * consuming the peer's own announces into the origin.
 */
export class Announces {
  readonly #ctx: SessionContext;
  /** Drops the role of a served stream that ended on its own (an announce the wire cannot carry). */
  readonly #ended: (id: StreamId) => void;
  /** Paths the peer announced and the origin holds for it. */
  readonly #announced = new Set<string>();
  /** The peer's hop id from its ANNOUNCE_OK (lite-05): the implicit last hop of its announces. */
  #peerHop: number | undefined;
  /** lite-06: the peer's announce ids on our announce stream, each START's suffix by ordinal. */
  readonly #peerIds = new Map<number, string>();
  #nextPeerId = 0;
  #requests = 0;

  /** @param ended drops the role of served stream `id`, ended from another session's event */
  constructor(ctx: SessionContext, ended: (id: StreamId) => void) {
    this.#ctx = ctx;
    this.#ended = ended;
  }

  /**
   * Asks the peer what it publishes, if it may publish anything at all (session ready); returns
   * the stream it opened with its role, for the dispatcher to file.
   */
  request(): { readonly stream: StreamId; readonly role: AnnounceRole } | undefined {
    const ctx = this.#ctx;
    if (ctx.permissions.publish.length === 0) return undefined;
    const writer = ctx.writer;
    if (writer === undefined) return undefined;
    const id = ctx.io.open(true);
    if (id === undefined) return undefined;
    const version = ctx.version;
    if (version === undefined) return undefined;
    const request: AnnounceRequest = { type: "announce_request", prefix: "", excludeHop: ctx.origin.hopId };
    ctx.io.send(id, writer.encodeAll([{ type: "stream_header", kind: "announce" }, request]), false);
    return { stream: id, role: { kind: "announce-intake", reader: new LiteStreamReader({ role: "opened", kind: "announce", version }) } };
  }

  /**
   * Serves an ANNOUNCE_REQUEST that came on accepted stream `id`: the stream's new role, "end"
   * when it was refused, or "keep" (its role unchanged) before the session is ready.
   */
  serve(id: StreamId, reader: LiteStreamReader, msg: AnnounceRequest): AnnounceRole | StreamFate {
    const ctx = this.#ctx;
    const version = ctx.version;
    const writer = ctx.writer;
    if (version === undefined || writer === undefined) return "keep";
    const prefix = joinPath(ctx.root, msg.prefix);
    if (!overlaps(ctx.permissions.subscribe, prefix)) {
      refuse(ctx.io, id, true, RelayCode.Unauthorized);
      return "end";
    }
    if (this.#requests >= ctx.limits.maxAnnounceRequests) {
      refuse(ctx.io, id, true, RelayCode.TooMany);
      return "end";
    }
    const visible = (e: AnnounceEvent): boolean =>
      allowed(ctx.permissions.subscribe, e.path) && (msg.excludeHop === 0 || !e.hops.includes(msg.excludeHop));
    // lite-05 names our hop once, in ANNOUNCE_OK; before, every announce carries it last.
    const lite05 = hasTrackStream(version);
    // lite-06: each START takes the next announce id; END and UPDATE name it.
    const ids = hasAnnounceIds(version);
    let nextId = 0;
    const sent = new Map<string, number>();
    const toWire = (e: AnnounceEvent): Announce => {
      const suffix = stripPathPrefix(prefix, e.path) ?? "";
      const hops = !e.active ? [] : lite05 ? [...e.hops] : [...e.hops, ctx.origin.hopId];
      if (!ids) return { type: "announce", status: e.active ? "active" : "ended", suffix, hops };
      const known = sent.get(e.path);
      if (!e.active) return { type: "announce", status: "ended", suffix: "", hops: [], id: known ?? 0 };
      if (known !== undefined) return { type: "announce", status: "restart", suffix: "", hops, id: known, cost: e.cost };
      return { type: "announce", status: "active", suffix, hops, cost: e.cost };
    };
    const record = (e: AnnounceEvent): void => {
      if (!e.active) sent.delete(e.path);
      else if (!sent.has(e.path)) sent.set(e.path, nextId++);
    };
    let live = true;
    // An announce the wire cannot carry (too many path parts) resets this stream only: it runs
    // inside whichever session changed the route, which must not fail for it.
    const send = (messages: LiteMessage[]): boolean => {
      let bytes: Uint8Array;
      try {
        bytes = writer.encodeAll(messages);
      } catch (err) {
        if (!(err instanceof LiteError)) throw err;
        live = false;
        watch.close();
        this.#requests -= 1;
        this.#ended(id);
        refuse(ctx.io, id, true, err.code);
        return false;
      }
      ctx.io.send(id, bytes, false);
      return true;
    };
    // Runs inside whichever connection changed the route: contained to this session.
    const watch = ctx.origin.watch(prefix, ctx.source, (e) => {
      ctx.contain("announce", () => {
        if (ctx.closed || !live) return;
        // Only lite-06 can tell a subscriber that a route changed (ANNOUNCE_UPDATE).
        if (e.update === true && !(ids && sent.has(e.path))) return;
        if (e.update !== true && (e.active ? !visible(e) || sent.has(e.path) : !sent.has(e.path))) return;
        const wire = toWire(e);
        record(e);
        send([wire]);
        ctx.drain();
      });
    });
    const initial = watch.initial.filter(visible);
    const initialWire = initial.map((e) => {
      const wire = toWire(e);
      record(e);
      return wire;
    });
    const messages: LiteMessage[] = isLegacy(version)
      ? [{ type: "announce_init", suffixes: initial.map((e) => stripPathPrefix(prefix, e.path) ?? "") }]
      : initialWire;
    if (lite05) messages.unshift({ type: "announce_ok", hopId: ctx.origin.hopId, activeCount: initial.length });
    this.#requests += 1;
    if (messages.length > 0 && !send(messages)) return "end";
    return {
      kind: "announce-serve",
      reader,
      close: () => {
        this.#requests -= 1;
        watch.close();
      },
    };
  }

  /** Reads the peer's announces on our announce stream `id`; "end" when that stream is over. */
  intake(id: StreamId, reader: LiteStreamReader): StreamFate {
    const ctx = this.#ctx;
    for (;;) {
      const step = reader.next();
      if (step.kind === "need_more") return "keep";
      if (step.kind === "end" || step.kind === "error") {
        this.withdrawAll();
        if (step.kind === "error") refuse(ctx.io, id, true, step.error.code);
        else ctx.io.send(id, new Uint8Array(0), true);
        return "end";
      }
      const msg = step.message;
      if (msg.type === "announce_init") {
        for (const suffix of msg.suffixes) this.#learn(suffix, true, []);
      } else if (msg.type === "announce_ok") {
        this.#peerHop = msg.hopId === 0 ? undefined : msg.hopId;
      } else if (msg.type === "announce") {
        const suffix = this.#resolve(msg);
        if (suffix === undefined) {
          // An END or UPDATE naming an id never assigned (or already ended) breaks the stream.
          this.withdrawAll();
          refuse(ctx.io, id, true, RelayCode.ProtocolViolation);
          return "end";
        }
        const hops = this.#peerHop === undefined || msg.status === "ended" ? msg.hops : [...msg.hops, this.#peerHop];
        // A broadcast that already went through us has looped: discard it.
        if (hops.includes(ctx.origin.hopId)) continue;
        // A restart (lite-05) or an UPDATE (lite-06) replaces the route: announcing again from
        // this source does that. lite-06 costs add up per link.
        this.#learn(suffix, msg.status !== "ended", hops, addCost(msg.cost ?? 0, ctx.cost));
      }
    }
  }

  /** The suffix an announce is about: its own before lite-06, the one its id was given to after. */
  #resolve(msg: Announce): string | undefined {
    const version = this.#ctx.version;
    if (version === undefined || !hasAnnounceIds(version)) return msg.suffix;
    if (msg.status === "active") {
      this.#peerIds.set(this.#nextPeerId++, msg.suffix);
      return msg.suffix;
    }
    const suffix = msg.id === undefined ? undefined : this.#peerIds.get(msg.id);
    if (msg.status === "ended" && msg.id !== undefined) this.#peerIds.delete(msg.id);
    return suffix;
  }

  /** Withdraws from the origin everything the peer announced. */
  withdrawAll(): void {
    for (const path of this.#announced) this.#ctx.origin.unannounce(path, this.#ctx.source);
    this.#announced.clear();
  }

  /** Forgets the peer's announces without telling the origin (teardown removes the source whole). */
  forget(): void {
    this.#announced.clear();
  }

  #learn(suffix: string, active: boolean, hops: readonly number[], cost = this.#ctx.cost): void {
    const ctx = this.#ctx;
    const path = joinPath(ctx.root, suffix);
    if (!active) {
      if (this.#announced.delete(path)) ctx.origin.unannounce(path, ctx.source);
      return;
    }
    if (!allowed(ctx.permissions.publish, path)) return;
    // Root plus suffix past the wire's part limit could be announced to no one.
    if (pathParts(path) > DEFAULT_LIMITS.maxPathParts) {
      ctx.stats.refused?.("path-parts");
      return;
    }
    if (!this.#announced.has(path) && this.#announced.size >= ctx.limits.maxAnnounced) return;
    this.#announced.add(path);
    ctx.origin.announce(path, ctx.source, hops, cost);
  }
}

/** Route costs add up per link, saturating at the largest safe integer. */
function addCost(announced: number, link: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, announced + link);
}
