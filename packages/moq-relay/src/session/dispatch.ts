import { hasTrackStream, type LiteMessage, LiteStreamReader, type LiteVersion, UniStreamType } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { PlaceCopy, TrackInfoAnswer, UpstreamTrack } from "../origin/index.js";
import type { Announces } from "../announce/index.js";
import { refuse, type RoleChanges, type SessionContext, type StreamFate } from "../context/index.js";
import { answerProbe, type FetchRole, fetchSettled, type GroupFetcher, serveFetch, serveTrack, type Serving } from "../serve/index.js";
import { RelayCode } from "../rules/index.js";
import type { SetupExchange } from "./setup-stream.js";
import { type ControlHandler, isControl, type StreamRole, type StreamTable } from "./stream-role.js";
import { askTrackInfo, InboundGroup, type Upstreams } from "../upstream/index.js";
import { UndecodedBytes } from "./undecoded-bytes.js";
import { peerReset } from "./dispatch-reset.js";

/** What the dispatcher leaves to the session itself. */
export interface DispatchHooks {
  /** Bytes on the SETUP stream (version negotiation). */
  setupData(id: StreamId, reader: LiteStreamReader, bytes: Uint8Array, fin: boolean): void;
  /** The peer sent GOAWAY. */
  goaway(uri: string): void;
}

/**
 * Request bytes a lite-05 peer may send before its SETUP is read (they wait, unread, until it
 * is): more than a few requests' worth means the SETUP is not coming.
 */
export const MAX_BYTES_BEFORE_SETUP = 64 * 1024;

/** Where FETCH and its wake-ups come from (the origin). */
export interface FetchSource extends GroupFetcher {
  /** The shared copy of a track the relay holds, if any (its watch wakes an open group's fetch). */
  cachedTrack(path: string, track: string): { watch(listener: () => void): () => void } | undefined;
}

/**
 * The role changes of a dispatcher made after the modules that report them (`get` returns it
 * once it is made: modules report nothing while the session is being built).
 */
export function laterChanges(get: () => StreamDispatch): RoleChanges<StreamRole> {
  return {
    file: (id, role) => {
      get().file(id, role);
    },
    drop: (id) => {
      get().drop(id);
    },
    holds: (id, role) => get().holds(id, role),
  };
}

/**
 * Routes each stream's events to the module that owns its kind: control streams the peer opened
 * (ANNOUNCE_REQUEST, SUBSCRIBE), our announce and subscribe streams, and group streams both ways.
 * It owns the session's stream table and is the only writer of it: each module returns the role
 * it gives a stream (or whether an event ended it), and reports the changes it learns of outside
 * its streams' events (a flush opening group streams, a track's info answered) through the
 * dispatcher's {@link RoleChanges}.
 */
export class StreamDispatch implements RoleChanges<StreamRole> {
  /** Fetches being answered, so a credit update pumps them without walking every stream. */
  readonly #fetches = new Map<StreamId, FetchRole>();
  /** Bytes each stream's decoder holds undecoded, as last reported to the budget. */
  readonly #buffered: UndecodedBytes;

  readonly #ctx: SessionContext;
  readonly #roles: StreamTable;
  readonly #announces: Announces;
  readonly #serving: Serving;
  readonly #upstreams: Upstreams;
  readonly #hooks: DispatchHooks;
  readonly #setup: SetupExchange;
  readonly #fetcher: FetchSource;

  constructor(
    ctx: SessionContext,
    /** Every live stream's role. */
    roles: StreamTable,
    announces: Announces,
    serving: Serving,
    upstreams: Upstreams,
    hooks: DispatchHooks,
    /** The lite-05 SETUP exchange: requests wait until it is complete. */
    setup: SetupExchange,
    fetcher: FetchSource,
  ) {
    this.#ctx = ctx;
    this.#roles = roles;
    this.#announces = announces;
    this.#serving = serving;
    this.#upstreams = upstreams;
    this.#hooks = hooks;
    this.#setup = setup;
    this.#fetcher = fetcher;
    this.#buffered = new UndecodedBytes(ctx.memory);
  }

  #waiting = 0;

  /** A stream the peer opened once the version is known: bidi is control, uni a group (or lite-05 SETUP). */
  opened(id: StreamId, bidi: boolean, version: LiteVersion): void {
    if (bidi) this.#roles.set(id, { kind: "accepted", reader: new LiteStreamReader({ role: "accepted-bidi", version }) });
    else if (hasTrackStream(version)) this.#roles.set(id, { kind: "uni-pending" });
    else this.#roles.set(id, { kind: "group-in", group: new InboundGroup(version, this.#ctx.limits.maxGroupBytes, this.#ctx.memory) });
  }

  /** Asks the peer for its announces (see {@link Announces.request}) and files the role of the stream it opened. */
  requestAnnounces(): void {
    const opened = this.#announces.request();
    if (opened !== undefined) this.#roles.set(opened.stream, opened.role);
  }

  /** @inheritdoc */
  file(id: StreamId, role: StreamRole): void {
    this.#roles.set(id, role);
  }

  /** @inheritdoc */
  drop(id: StreamId): void {
    this.#roles.delete(id);
  }

  /** @inheritdoc */
  holds(id: StreamId, role: StreamRole): boolean {
    return this.#roles.get(id) === role;
  }

  /** Files what a module returned for stream `id`: a new role, its end, or no change. */
  #apply(id: StreamId, result: StreamRole | StreamFate): void {
    if (result === "end") this.#roles.delete(id);
    else if (result !== "keep") this.#roles.set(id, result);
  }

  /** Asks the peer for a track's info (see {@link askTrackInfo}) and files the role of the TRACK stream it opened. */
  askTrackInfo(path: string, track: string, answer: TrackInfoAnswer): boolean {
    const asked = askTrackInfo(this.#ctx, path, track, answer);
    if (typeof asked === "boolean") return asked;
    this.#roles.set(asked.stream, asked.role);
    this.#ctx.drain();
    return true;
  }

  /** Subscribes upstream (see {@link Upstreams.subscribe}) and files the role Upstreams gives our SUBSCRIBE stream. */
  subscribeUpstream(path: string, track: string, priority: number, place: PlaceCopy): UpstreamTrack | undefined {
    const opened = this.#upstreams.subscribe(path, track, priority, place);
    if (opened !== undefined) this.#roles.set(opened.stream, opened.role);
    return opened?.upstream;
  }

  /** The lite-05 SETUP exchange completed: handle the requests that waited for it. */
  resume(): void {
    this.#waiting = 0;
    for (const [id, handler] of [...this.#roles]) if (isControl(handler)) this.#control(id);
  }

  /** The framing has room again: continue the fetches it blocked. */
  writable(): void {
    // Only the fetches waiting to write, not every stream: this runs on every credit update.
    for (const [id, role] of [...this.#fetches]) {
      if (this.#roles.get(id) !== role || role.fetch.done) {
        this.#fetches.delete(id);
        continue;
      }
      if (role.fetch.pump() === "done") {
        fetchSettled(this, id, role);
        this.#fetches.delete(id);
      }
    }
  }

  /** Requests wait (unread) until a lite-05+ peer's SETUP is accepted. */
  get #held(): boolean {
    const version = this.#ctx.version;
    return version !== undefined && hasTrackStream(version) && !this.#setup.complete;
  }

  /** Bytes (and FIN) on stream `id`. */
  data(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    this.#route(id, bytes, fin);
    this.#account(id);
  }

  /**
   * Reports to the budget streams whose decoders were dropped without a byte or reset reaching
   * them (a request turned down, the session's own decision); run now and then.
   */
  reconcile(): void {
    for (const id of [...this.#buffered.streams]) this.#account(id);
  }

  /** Stream `id` has room again: one of our group streams is pumped at the next flush. */
  streamWritable(id: StreamId): void {
    const role = this.#roles.get(id);
    if (role?.kind === "group-out") this.#serving.writable(role.group);
  }

  /** Our GOAWAY went out on stream `id`. */
  sentGoaway(id: StreamId): void {
    this.#roles.set(id, { kind: "goaway-out" });
  }

  /** Bidi stream `id` the peer opened carries its pre-lite-05 SETUP (version negotiation). */
  setupStream(id: StreamId): void {
    this.#roles.set(id, { kind: "setup", reader: new LiteStreamReader({ role: "setup-server" }) });
  }

  /** The session ended: what waits on a stream lets go (an announce watch, a fetch, a track's info). */
  teardown(): void {
    for (const handler of this.#roles.values()) {
      if (handler.kind === "announce-serve") handler.close();
      // A fetch waiting on an open group lets go of its track now, not at the track's next change.
      else if (handler.kind === "fetch-serve") handler.fetch.abandon(undefined);
      else if (handler.kind === "track-serve") handler.cancel();
      // Another route may still answer a reader waiting for this track's info.
      else if (handler.kind === "track-query") handler.query.gone();
    }
  }

  /** The session ended: nothing it was decoding is held any more, and no stream has a role. */
  release(): void {
    this.#buffered.release();
    this.#roles.clear();
  }

  #account(id: StreamId): void {
    this.#buffered.account(id, this.#roles.get(id));
  }

  #route(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    const handler = this.#roles.get(id);
    if (handler === undefined) return;
    switch (handler.kind) {
      case "setup":
        this.#hooks.setupData(id, handler.reader, bytes, fin);
        return;
      case "accepted":
      case "announce-serve":
      case "subscribe-serve":
      case "ignore":
      case "answered":
      case "track-serve":
      case "fetch-serve":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        if (this.#held) {
          this.#waiting += bytes.length;
          if (this.#waiting > MAX_BYTES_BEFORE_SETUP) this.#ctx.close(RelayCode.TooMany, "requests without SETUP");
          return;
        }
        this.#control(id);
        return;
      case "uni-pending":
        this.#classifyUni(id, bytes, fin);
        return;
      case "setup-in":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        if (!this.#setup.read(handler.reader)) this.#roles.delete(id);
        return;
      case "announce-intake":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        if (this.#announces.intake(id, handler.reader) === "end") this.#roles.delete(id);
        return;
      case "upstream":
        if (this.#upstreams.receive(id, handler.sub, bytes, fin) === "end") this.#roles.delete(id);
        return;
      case "track-query":
        if (!handler.query.receive(this.#ctx, id, bytes, fin)) this.#roles.delete(id);
        return;
      case "group-in":
        if (this.#upstreams.receiveGroup(id, handler.group, bytes, fin) === "end") this.#roles.delete(id);
        return;
      case "group-out":
      case "goaway-out":
        return;
      default: {
        const never: never = handler;
        throw new Error(`unexpected handler ${JSON.stringify(never)}`);
      }
    }
  }

  /** The peer reset stream `id` (or, with `stopSending`, asked us to stop sending on it). */
  reset(id: StreamId, code: number, stopSending: boolean): void {
    const handler = this.#roles.get(id);
    if (handler !== undefined) peerReset({ ctx: this.#ctx, roles: this, serving: this.#serving, upstreams: this.#upstreams, announces: this.#announces }, id, handler, code, stopSending);
    this.#account(id);
  }

  #control(id: StreamId): void {
    for (;;) {
      const handler = this.#roles.get(id);
      if (handler === undefined || !isControl(handler) || this.#held) return;
      const step = handler.reader.next();
      switch (step.kind) {
        case "need_more":
          return;
        case "end":
          this.#controlEnd(id, handler);
          return;
        case "error":
          this.#controlFailed(id, handler, step.error.code);
          return;
        case "message":
          this.#controlMessage(id, handler, step.message);
          continue;
        default: {
          const never: never = step;
          throw new Error(`unexpected step ${JSON.stringify(never)}`);
        }
      }
    }
  }

  #controlMessage(id: StreamId, handler: ControlHandler, msg: LiteMessage): void {
    if (msg.type === "stream_header") {
      if (handler.kind !== "accepted") return;
      if (msg.kind === "probe") {
        this.#roles.set(id, { kind: "answered", reader: handler.reader });
        answerProbe(this.#ctx, id);
      } else if (msg.kind !== "announce" && msg.kind !== "subscribe" && msg.kind !== "track" && msg.kind !== "fetch") {
        // GOAWAY is read and surfaced; nothing is answered on it.
        this.#roles.set(id, { kind: "ignore", reader: handler.reader });
      }
    } else if (msg.type === "probe") {
      if (handler.kind === "answered") answerProbe(this.#ctx, id);
    } else if (msg.type === "track") {
      if (handler.kind === "accepted") this.#apply(id, serveTrack(this.#ctx, this, id, handler.reader, msg));
    } else if (msg.type === "fetch") {
      if (handler.kind === "accepted") this.#serveFetch(id, handler.reader, msg);
    } else if (msg.type === "announce_request") {
      if (handler.kind === "accepted") this.#apply(id, this.#announces.serve(id, handler.reader, msg));
    } else if (msg.type === "subscribe") {
      if (handler.kind === "accepted") {
        const role = this.#serving.serve(id, handler.reader, msg);
        this.#apply(id, role);
        if (typeof role === "object" && role.kind === "subscribe-serve" && role.sub !== undefined) this.#serving.begin(role.sub);
      }
    } else if (msg.type === "subscribe_update") {
      if (handler.kind === "subscribe-serve") handler.sub?.update(msg);
    } else if (msg.type === "goaway") {
      this.#hooks.goaway(msg.uri);
    }
    // Anything else on an accepted stream (PROBE reports) needs no answer.
  }

  #serveFetch(id: StreamId, reader: LiteStreamReader, msg: Extract<LiteMessage, { type: "fetch" }>): void {
    const fetcher = this.#fetcher;
    let live = 0;
    for (const role of this.#roles.values()) if (role.kind === "fetch-serve") live += 1;
    const served = serveFetch(this.#ctx, this, fetcher, (path, track, listener) => fetcher.cachedTrack(path, track)?.watch(listener), live, id, reader, msg);
    this.#apply(id, served);
    if (typeof served === "object" && served.kind === "fetch-serve" && !served.fetch.done) this.#fetches.set(id, served);
  }

  #controlEnd(id: StreamId, handler: ControlHandler): void {
    const ctx = this.#ctx;
    if (handler.kind === "fetch-serve") {
      // The peer has asked all it will; the frames still go out, to FIN or reset.
      handler.fetch.peerDone = true;
      if (handler.fetch.done) this.#roles.delete(id);
      return;
    }
    this.#roles.delete(id);
    // The peer gave up waiting for the track's info.
    if (handler.kind === "track-serve") handler.cancel();
    if (handler.kind === "subscribe-serve" && handler.sub !== undefined) {
      // The peer unsubscribed (FIN): stop sending and close our side too.
      this.#serving.end(handler.sub, undefined);
      return;
    }
    if (handler.kind === "announce-serve") handler.close();
    ctx.io.send(id, new Uint8Array(0), true);
  }

  #controlFailed(id: StreamId, handler: ControlHandler, code: number): void {
    const ctx = this.#ctx;
    this.#roles.delete(id);
    if (handler.kind === "track-serve") handler.cancel();
    if (handler.kind === "answered") {
      // Never reset a PROBE stream (@moq/lite closes its session on that): stop reading, FIN ours.
      ctx.io.stopSending(id, code);
      ctx.io.send(id, new Uint8Array(0), true);
    } else if (handler.kind === "fetch-serve") {
      handler.fetch.abandon(code);
      ctx.io.stopSending(id, code);
    } else if (handler.kind === "subscribe-serve" && handler.sub !== undefined) this.#serving.end(handler.sub, code);
    else {
      if (handler.kind === "announce-serve") handler.close();
      refuse(ctx.io, id, true, code);
    }
  }

  /** A lite-05 uni stream's first byte tells a SETUP (type 1) from a group (type 0). */
  #classifyUni(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    const ctx = this.#ctx;
    const version = ctx.version;
    if (version === undefined) return;
    const first = bytes[0];
    if (first === undefined) {
      if (fin) this.#roles.delete(id);
      return;
    }
    if (first === UniStreamType.Setup) {
      if (!this.#setup.claim(id)) return;
      this.#roles.set(id, { kind: "setup-in", reader: new LiteStreamReader({ role: "accepted-uni", version }) });
    } else {
      // Anything else is read as a group; the group reader rejects a bad type with its code.
      this.#roles.set(id, { kind: "group-in", group: new InboundGroup(version, ctx.limits.maxGroupBytes, ctx.memory) });
    }
    this.#route(id, bytes, fin);
  }
}
