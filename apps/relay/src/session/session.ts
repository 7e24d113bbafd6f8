import type { GroupReader } from "@handoff/moq-resume";
import {
  type Announce,
  type AnnounceRequest,
  joinPath,
  LiteStreamReader,
  LiteStreamWriter,
  type LiteMessage,
  type LiteVersion,
  hasGoaway,
  isLegacy,
  normalizePath,
  stripPathPrefix,
  type Subscribe,
} from "@handoff/moq-resume/lite";
import { allowed, overlaps, type Permissions } from "../auth/permissions.js";
import type { AnnounceEvent, Origin } from "../origin/origin.js";
import type { RouteSource, UpstreamTrack } from "../origin/route.js";
import type { FramingEvent, FramingSession, StreamId } from "../transport/index.js";
import { DEFAULT_SESSION_LIMITS, RelayCode, type SessionLimits } from "./limits.js";
import { OutboundGroup } from "./outbound-group.js";
import { compareScheduled, victim } from "./scheduler.js";
import { ServedSubscription, type ServeHost } from "./served-subscription.js";
import { NO_STATS, type SessionStats } from "./stats.js";
import type { StreamIo } from "./stream-io.js";
import { InboundGroup, UpstreamSubscription } from "./upstream.js";
import { pickSetupVersion, versionMode, type VersionMode } from "./version.js";

/** Where a session's output goes: the socket driver. */
export interface SessionSink {
  /** Bytes to put on the wire (one WebSocket message, or a chunk of the TCP stream). */
  send(bytes: Uint8Array): void;
  /** The session is over; close the socket once the sends are flushed. */
  closed(code: number, reason: string): void;
  /** The peer sent GOAWAY (lite-04): acting on the redirect is a later issue, it is surfaced here. */
  goaway?(uri: string): void;
}

/** Options of one session. */
export interface SessionOptions {
  /** Unique id (logs, split horizon). */
  readonly id: number;
  readonly framing: FramingSession;
  readonly mode: VersionMode;
  readonly origin: Origin;
  /** The connection's path scope: the peer's paths are relative to it. */
  readonly root: string;
  readonly permissions: Permissions;
  readonly sink: SessionSink;
  readonly limits?: Partial<SessionLimits>;
  readonly stats?: SessionStats;
  /** Link cost of routes learnt from this peer (default 0). */
  readonly cost?: number;
}

type Handler =
  | { readonly kind: "setup"; readonly reader: LiteStreamReader }
  | { readonly kind: "accepted"; readonly reader: LiteStreamReader }
  | { readonly kind: "announce-serve"; readonly reader: LiteStreamReader; close: () => void }
  | { readonly kind: "subscribe-serve"; readonly reader: LiteStreamReader; sub: ServedSubscription | undefined }
  | { readonly kind: "ignore"; readonly reader: LiteStreamReader }
  | { readonly kind: "announce-intake"; readonly reader: LiteStreamReader }
  | { readonly kind: "upstream"; readonly sub: UpstreamSubscription }
  | { readonly kind: "group-in"; readonly group: InboundGroup }
  | { readonly kind: "group-out"; readonly group: OutboundGroup }
  | { readonly kind: "goaway-out" };

/**
 * One moq-lite session over one framing (one WebSocket or TCP connection): version
 * negotiation, stream dispatch, announces both ways, subscriptions served from the origin's
 * shared copies, and subscriptions made upstream when the peer publishes. Sans-I/O apart from
 * the sink it writes to; the server drives it with bytes and ticks.
 */
export class LiteSession implements RouteSource, ServeHost {
  /** @inheritdoc */
  readonly id: number;
  readonly #framing: FramingSession;
  readonly #origin: Origin;
  readonly #root: string;
  readonly #permissions: Permissions;
  readonly #sink: SessionSink;
  readonly #limits: SessionLimits;
  readonly #stats: SessionStats;
  readonly #cost: number;
  #mode: VersionMode;
  readonly #handlers = new Map<StreamId, Handler>();
  readonly #served = new Set<ServedSubscription>();
  readonly #upstream = new Map<number, UpstreamSubscription>();
  readonly #announced = new Set<string>();
  readonly #outbound: OutboundGroup[] = [];
  readonly #io: StreamIo;
  #version: LiteVersion | undefined;
  #writer: LiteStreamWriter | undefined;
  #transportReady = false;
  #setupStream: StreamId | undefined;
  #nextSubscribeId = 0;
  #groupOrder = 0;
  #announceRequests = 0;
  #draining = false;
  #closed = false;
  #flushing = false;

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.#framing = options.framing;
    this.#origin = options.origin;
    this.#root = normalizePath(options.root);
    this.#permissions = options.permissions;
    this.#sink = options.sink;
    this.#limits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
    this.#stats = options.stats ?? NO_STATS;
    this.#cost = options.cost ?? 0;
    this.#mode = options.mode;
    if (options.mode.kind === "fixed") this.#setVersion(options.mode.version);
    const framing = this.#framing;
    this.#io = {
      open: (bidi) => {
        const r = framing.openStream(bidi);
        return r.ok ? r.streamId : undefined;
      },
      write: (id, bytes, fin) => {
        const r = framing.write(id, bytes, fin);
        return r.ok ? r.accepted : bytes.length;
      },
      reset: (id, code) => {
        framing.reset(id, code);
      },
      stopSending: (id, code) => {
        framing.stopSending(id, code);
      },
    };
  }

  /** The negotiated version, once known. */
  get version(): LiteVersion | undefined {
    return this.#version;
  }

  /** True once the session ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Downstream subscriptions being served. */
  get subscriptions(): number {
    return this.#served.size;
  }

  /**
   * Outbound bytes this session holds for its peer: queued in the framing (waiting for credit)
   * plus encoded in group streams the framing has not taken yet. Read-only, for tests and metrics.
   */
  get heldBytes(): number {
    let total = this.#framing.bufferedBytes;
    for (const out of this.#outbound) total += out.pendingBytes;
    return total;
  }

  /** Group streams queued or being written to the peer. */
  get outboundGroups(): number {
    return this.#outbound.length;
  }

  /** Starts the session: flushes what the framing queued (qmux transport parameters). */
  start(): void {
    this.#drain();
  }

  /** Feeds one inbound message (or byte-stream chunk). */
  receive(bytes: Uint8Array): void {
    if (this.#closed) return;
    this.#framing.receive(bytes);
    this.#drain();
  }

  /** Advances time (idle and handshake timeouts of the framing). */
  tick(nowMs: number): void {
    if (this.#closed) return;
    this.#framing.tick(nowMs);
    this.#drain();
  }

  /** Liveness seen outside the framing (a WebSocket pong). */
  touch(): void {
    this.#framing.touch();
  }

  /** Closes the session with an application code. */
  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#framing.close(code, reason);
    this.#drain();
  }

  /**
   * Sends GOAWAY (lite-04+): the peer should reconnect to `uri` (empty: just go). Returns false
   * when the version has no GOAWAY or no stream could be opened.
   */
  goaway(uri: string): boolean {
    const version = this.#version;
    const writer = this.#writer;
    if (this.#closed || version === undefined || writer === undefined || !hasGoaway(version)) return false;
    const id = this.#io.open(true);
    if (id === undefined) return false;
    this.#handlers.set(id, { kind: "goaway-out" });
    this.#io.write(id, writer.encodeAll([{ type: "stream_header", kind: "goaway" }, { type: "goaway", uri }]), false);
    this.#drain();
    return true;
  }

  // --- RouteSource ---

  /** @inheritdoc */
  subscribeUpstream(path: string, track: string, priority: number): UpstreamTrack | undefined {
    const version = this.#version;
    const writer = this.#writer;
    if (this.#closed || version === undefined || writer === undefined) return undefined;
    if (this.#upstream.size >= this.#limits.maxUpstream) return undefined;
    const suffix = stripPathPrefix(this.#root, path);
    if (suffix === undefined) return undefined;
    const streamId = this.#io.open(true);
    if (streamId === undefined) return undefined;
    const id = this.#nextSubscribeId++;
    const sub = new UpstreamSubscription(id, streamId, version, track, priority, this.#limits.trackCacheGroups);
    this.#upstream.set(id, sub);
    this.#handlers.set(streamId, { kind: "upstream", sub });
    const msg: Subscribe = {
      type: "subscribe",
      id,
      broadcast: suffix,
      track,
      priority,
      ordered: false,
      maxLatency: 0,
      startGroup: undefined,
      endGroup: undefined,
    };
    this.#io.write(streamId, writer.encodeAll([{ type: "stream_header", kind: "subscribe" }, msg]), false);
    this.#drainLater();
    return {
      track: sub.track,
      cancel: () => {
        if (this.#closed) return;
        sub.cancel(this.#io);
        this.#drainLater();
      },
    };
  }

  // --- ServeHost ---

  /** @inheritdoc */
  startGroup(sub: ServedSubscription, group: GroupReader): void {
    const version = this.#version;
    if (version === undefined) return;
    const out = new OutboundGroup(version, sub.id, group, () => sub.priority, this.#groupOrder++, this.#stats);
    sub.openGroups += 1;
    this.#outbound.push(out);
    this.#outboundOwner.set(out, sub);
    while (this.#outbound.length > this.#limits.maxOutboundGroups) {
      const worst = victim(this.#outbound);
      if (worst === undefined) break;
      this.#stats.skipped();
      worst.abandon(this.#io, RelayCode.Skipped);
      this.#retire(worst);
    }
  }

  /** @inheritdoc */
  finished(sub: ServedSubscription): void {
    this.#maybeFinish(sub);
  }

  /** @inheritdoc */
  failed(sub: ServedSubscription, code: number): void {
    this.#endServed(sub, code);
    this.#drainLater();
  }

  /** @inheritdoc */
  kick(): void {
    this.#flushGroups();
    this.#drainLater();
  }

  readonly #outboundOwner = new Map<OutboundGroup, ServedSubscription>();

  // --- event loop ---

  #drainLater(): void {
    // Called from origin callbacks that may run inside another session's drain; our own drain
    // is re-entrant-safe, so just run it.
    this.#drain();
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      // Handling an event may queue more (a write emits sends): poll until nothing is left.
      for (let events = this.#framing.poll(); events.length > 0; events = this.#framing.poll()) {
        for (const event of events) this.#onEvent(event);
      }
    } finally {
      this.#draining = false;
    }
  }

  #onEvent(event: FramingEvent): void {
    switch (event.kind) {
      case "send":
        this.#sink.send(event.bytes);
        return;
      case "ready":
        this.#transportReady = true;
        if (this.#mode.kind === "transport") this.#versionFromTransport();
        if (this.#version !== undefined) this.#onSessionReady();
        return;
      case "stream-opened":
        this.#onStreamOpened(event.streamId, event.bidi);
        return;
      case "stream-data":
        this.#onStreamData(event.streamId, event.bytes, event.fin);
        return;
      case "stream-reset":
      case "stop-sending":
        this.#onStreamReset(event.streamId, event.code, event.kind === "stop-sending");
        return;
      case "writable":
      case "streams-available":
        this.#flushGroups();
        return;
      case "closed":
        this.#teardown(event.code, event.reason);
        return;
      default: {
        const never: never = event;
        throw new Error(`unexpected framing event ${JSON.stringify(never)}`);
      }
    }
  }

  #setVersion(version: LiteVersion): void {
    this.#version = version;
    this.#writer = new LiteStreamWriter(version);
  }

  #versionFromTransport(): void {
    // Plain TCP has no ALPN: the qmux application_protocols parameter carries it; none agreed
    // means the in-band SETUP, as for a bare WebSocket subprotocol.
    const mode = versionMode(this.#framing.applicationProtocol);
    if (mode === undefined) {
      this.close(RelayCode.Version, "unsupported application protocol");
      return;
    }
    if (mode.kind === "fixed") this.#setVersion(mode.version);
    else this.#mode = { kind: "setup" };
  }

  #onSessionReady(): void {
    // Learn what the peer publishes, if it may publish anything at all.
    if (this.#permissions.publish.length === 0) return;
    const writer = this.#writer;
    if (writer === undefined) return;
    const id = this.#io.open(true);
    if (id === undefined) return;
    const version = this.#version;
    if (version === undefined) return;
    this.#handlers.set(id, { kind: "announce-intake", reader: new LiteStreamReader({ role: "opened", kind: "announce", version }) });
    const request: AnnounceRequest = { type: "announce_request", prefix: "", excludeHop: this.#origin.hopId };
    this.#io.write(id, writer.encodeAll([{ type: "stream_header", kind: "announce" }, request]), false);
  }

  #onStreamOpened(id: StreamId, bidi: boolean): void {
    const version = this.#version;
    if (version === undefined) {
      if (this.#mode.kind === "setup" && bidi && this.#setupStream === undefined) {
        this.#setupStream = id;
        this.#handlers.set(id, { kind: "setup", reader: new LiteStreamReader({ role: "setup-server" }) });
        return;
      }
      // Nothing but the SETUP may come before the version is known.
      this.#refuse(id, bidi, RelayCode.Version);
      return;
    }
    if (bidi) this.#handlers.set(id, { kind: "accepted", reader: new LiteStreamReader({ role: "accepted-bidi", version }) });
    else this.#handlers.set(id, { kind: "group-in", group: new InboundGroup(version, this.#limits.maxGroupBytes) });
  }

  #refuse(id: StreamId, bidi: boolean, code: number): void {
    this.#io.stopSending(id, code);
    if (bidi) this.#io.reset(id, code);
  }

  #onStreamData(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    const handler = this.#handlers.get(id);
    if (handler === undefined) return;
    switch (handler.kind) {
      case "setup":
        this.#onSetupData(id, handler.reader, bytes, fin);
        return;
      case "accepted":
      case "announce-serve":
      case "subscribe-serve":
      case "ignore":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        this.#onControl(id);
        return;
      case "announce-intake":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        this.#onAnnounceIntake(id, handler.reader);
        return;
      case "upstream": {
        const result = handler.sub.receive(bytes, fin);
        if (result.over) {
          this.#upstream.delete(handler.sub.id);
          this.#handlers.delete(id);
          if (result.errorCode !== undefined) this.#refuse(id, true, result.errorCode);
          else if (!handler.sub.cancelled) this.#io.write(id, new Uint8Array(0), true);
        }
        return;
      }
      case "group-in": {
        const result = handler.group.receive(
          bytes,
          fin,
          (sid) => this.#upstream.get(sid)?.track,
          (n) => {
            this.#stats.frame("in", n);
          },
        );
        if (result === "more") return;
        this.#handlers.delete(id);
        if (result === "ignore") this.#io.stopSending(id, RelayCode.Cancel);
        else if (result === "oversized") {
          // STOP_SENDING asks the publisher to reset the stream: the rest of the group is not wanted.
          this.#stats.oversized?.();
          this.#io.stopSending(id, RelayCode.TooLarge);
        } else if (result !== "done") this.#io.stopSending(id, result.error);
        else this.#stats.group("in");
        return;
      }
      case "group-out":
      case "goaway-out":
        return;
      default: {
        const never: never = handler;
        throw new Error(`unexpected handler ${JSON.stringify(never)}`);
      }
    }
  }

  #onSetupData(id: StreamId, reader: LiteStreamReader, bytes: Uint8Array, fin: boolean): void {
    reader.push(bytes);
    if (fin) reader.end();
    for (;;) {
      const step = reader.next();
      if (step.kind === "need_more") return;
      if (step.kind === "end") {
        this.close(RelayCode.Cancel, "session stream ended");
        return;
      }
      if (step.kind === "error") {
        this.close(step.error.code, step.error.message);
        return;
      }
      const msg = step.message;
      if (msg.type !== "client_setup") continue; // SESSION_INFO: nothing to act on.
      if (this.#version !== undefined) continue;
      const version = pickSetupVersion(msg.versions);
      if (version === undefined) {
        this.close(RelayCode.Version, "no common moq-lite version");
        return;
      }
      this.#setVersion(version);
      this.#io.write(id, new LiteStreamWriter(version).encode({ type: "server_setup", version, parameters: [] }), false);
      if (this.#transportReady) this.#onSessionReady();
    }
  }

  #onControl(id: StreamId): void {
    for (;;) {
      const handler = this.#handlers.get(id);
      if (handler === undefined) return;
      if (handler.kind !== "accepted" && handler.kind !== "announce-serve" && handler.kind !== "subscribe-serve" && handler.kind !== "ignore") return;
      const step = handler.reader.next();
      switch (step.kind) {
        case "need_more":
          return;
        case "end":
          this.#onControlEnd(id, handler);
          return;
        case "error":
          this.#onControlFailed(id, handler, step.error.code);
          return;
        case "message":
          this.#onControlMessage(id, handler, step.message);
          continue;
        default: {
          const never: never = step;
          throw new Error(`unexpected step ${JSON.stringify(never)}`);
        }
      }
    }
  }

  #onControlMessage(id: StreamId, handler: Handler, msg: LiteMessage): void {
    if (msg.type === "stream_header") {
      // PROBE (answered by leaving it open: an error there closes @moq/lite's whole session),
      // GOAWAY and the rest are read and otherwise ignored.
      if (msg.kind !== "announce" && msg.kind !== "subscribe" && handler.kind === "accepted") {
        this.#handlers.set(id, { kind: "ignore", reader: handler.reader });
      }
    } else if (msg.type === "announce_request") {
      this.#serveAnnounce(id, handler, msg);
    } else if (msg.type === "subscribe") {
      this.#serveSubscribe(id, handler, msg);
    } else if (msg.type === "subscribe_update") {
      if (handler.kind === "subscribe-serve") handler.sub?.update(msg);
    } else if (msg.type === "goaway") {
      this.#sink.goaway?.(msg.uri);
    }
    // Anything else on an accepted stream (PROBE reports) needs no answer.
  }

  #onControlEnd(id: StreamId, handler: Handler): void {
    this.#handlers.delete(id);
    if (handler.kind === "subscribe-serve" && handler.sub !== undefined) {
      // The peer unsubscribed (FIN): stop sending and close our side too.
      this.#endServed(handler.sub, undefined);
      return;
    }
    if (handler.kind === "announce-serve") handler.close();
    this.#io.write(id, new Uint8Array(0), true);
  }

  #onControlFailed(id: StreamId, handler: Handler, code: number): void {
    this.#handlers.delete(id);
    if (handler.kind === "subscribe-serve" && handler.sub !== undefined) this.#endServed(handler.sub, code);
    else {
      if (handler.kind === "announce-serve") handler.close();
      this.#refuse(id, true, code);
    }
  }

  #serveAnnounce(id: StreamId, handler: Handler, msg: AnnounceRequest): void {
    const version = this.#version;
    const writer = this.#writer;
    if (version === undefined || writer === undefined || handler.kind !== "accepted") return;
    const prefix = joinPath(this.#root, msg.prefix);
    if (!overlaps(this.#permissions.subscribe, prefix)) {
      this.#handlers.delete(id);
      this.#refuse(id, true, RelayCode.Unauthorized);
      return;
    }
    if (this.#announceRequests >= this.#limits.maxAnnounceRequests) {
      this.#handlers.delete(id);
      this.#refuse(id, true, RelayCode.TooMany);
      return;
    }
    this.#announceRequests += 1;
    const visible = (e: AnnounceEvent): boolean =>
      allowed(this.#permissions.subscribe, e.path) && (msg.excludeHop === 0 || !e.hops.includes(msg.excludeHop));
    const toWire = (e: AnnounceEvent): Announce => ({
      type: "announce",
      status: e.active ? "active" : "ended",
      suffix: stripPathPrefix(prefix, e.path) ?? "",
      hops: e.active ? [...e.hops, this.#origin.hopId] : [],
    });
    const sent = new Set<string>();
    const watch = this.#origin.watch(prefix, this, (e) => {
      if (this.#closed) return;
      if (e.active ? !visible(e) : !sent.has(e.path)) return;
      if (e.active) sent.add(e.path);
      else sent.delete(e.path);
      this.#io.write(id, writer.encode(toWire(e)), false);
      this.#drainLater();
    });
    const initial = watch.initial.filter(visible);
    for (const e of initial) sent.add(e.path);
    const messages: LiteMessage[] = isLegacy(version)
      ? [{ type: "announce_init", suffixes: initial.map((e) => stripPathPrefix(prefix, e.path) ?? "") }]
      : initial.map(toWire);
    if (messages.length > 0) this.#io.write(id, writer.encodeAll(messages), false);
    this.#handlers.set(id, {
      kind: "announce-serve",
      reader: handler.reader,
      close: () => {
        this.#announceRequests -= 1;
        watch.close();
      },
    });
  }

  #serveSubscribe(id: StreamId, handler: Handler, msg: Subscribe): void {
    const writer = this.#writer;
    if (writer === undefined || handler.kind !== "accepted") return;
    const path = joinPath(this.#root, msg.broadcast);
    const refuse = (code: number): void => {
      this.#handlers.set(id, { kind: "ignore", reader: handler.reader });
      this.#refuse(id, true, code);
    };
    if (!allowed(this.#permissions.subscribe, path)) {
      refuse(RelayCode.Unauthorized);
      return;
    }
    if (this.#served.size >= this.#limits.maxSubscriptions) {
      refuse(RelayCode.TooMany);
      return;
    }
    const routed = this.#origin.subscribe(path, msg.track, msg.priority, this);
    if (!routed.ok) {
      refuse(RelayCode.NotFound);
      return;
    }
    const entry: Handler = { kind: "subscribe-serve", reader: handler.reader, sub: undefined };
    this.#handlers.set(id, entry);
    this.#io.write(
      id,
      writer.encode({
        type: "subscribe_ok",
        priority: msg.priority,
        ordered: msg.ordered,
        maxLatency: msg.maxLatency,
        startGroup: msg.startGroup,
        endGroup: msg.endGroup,
      }),
      false,
    );
    const sub = new ServedSubscription(id, msg, routed.track, routed.release, this);
    entry.sub = sub;
    this.#served.add(sub);
    this.#stats.subscription(1);
    sub.pump();
  }

  #onAnnounceIntake(id: StreamId, reader: LiteStreamReader): void {
    for (;;) {
      const step = reader.next();
      if (step.kind === "need_more") return;
      if (step.kind === "end" || step.kind === "error") {
        this.#handlers.delete(id);
        this.#withdrawAll();
        if (step.kind === "error") this.#refuse(id, true, step.error.code);
        else this.#io.write(id, new Uint8Array(0), true);
        return;
      }
      const msg = step.message;
      if (msg.type === "announce_init") {
        for (const suffix of msg.suffixes) this.#learn(suffix, true, []);
      } else if (msg.type === "announce") {
        // A broadcast that already went through us has looped: discard it.
        if (msg.hops.includes(this.#origin.hopId)) continue;
        this.#learn(msg.suffix, msg.status !== "ended", msg.hops);
      }
    }
  }

  #learn(suffix: string, active: boolean, hops: readonly number[]): void {
    const path = joinPath(this.#root, suffix);
    if (!active) {
      if (this.#announced.delete(path)) this.#origin.unannounce(path, this);
      return;
    }
    if (!allowed(this.#permissions.publish, path)) return;
    if (!this.#announced.has(path) && this.#announced.size >= this.#limits.maxAnnounced) return;
    this.#announced.add(path);
    this.#origin.announce(path, this, hops, this.#cost);
  }

  #withdrawAll(): void {
    for (const path of this.#announced) this.#origin.unannounce(path, this);
    this.#announced.clear();
  }

  #onStreamReset(id: StreamId, code: number, stopSending: boolean): void {
    const handler = this.#handlers.get(id);
    if (handler === undefined) return;
    switch (handler.kind) {
      case "group-out":
        // The peer does not want the rest of this group (the framing already reset it).
        handler.group.abandon(this.#io, code);
        this.#retire(handler.group);
        this.#flushGroups();
        return;
      case "group-in":
        if (stopSending) return;
        this.#handlers.delete(id);
        handler.group.reset();
        return;
      case "upstream":
        this.#handlers.delete(id);
        this.#upstream.delete(handler.sub.id);
        handler.sub.reset(code);
        if (!stopSending) this.#io.reset(id, code);
        return;
      case "subscribe-serve":
        this.#handlers.delete(id);
        if (handler.sub !== undefined) this.#endServed(handler.sub, code);
        return;
      case "announce-serve":
        this.#handlers.delete(id);
        handler.close();
        this.#refuse(id, true, code);
        return;
      case "announce-intake":
        this.#handlers.delete(id);
        this.#withdrawAll();
        this.#refuse(id, true, code);
        return;
      case "setup":
        this.close(code, "session stream reset");
        return;
      case "accepted":
      case "ignore":
      case "goaway-out":
        this.#handlers.delete(id);
        this.#refuse(id, true, code);
        return;
      default: {
        const never: never = handler;
        throw new Error(`unexpected handler ${JSON.stringify(never)}`);
      }
    }
  }

  // --- outbound groups ---

  #flushGroups(): void {
    if (this.#closed || this.#flushing) return;
    this.#flushing = true;
    try {
      if (this.#outbound.length > 1) this.#outbound.sort(compareScheduled);
      let streamsLeft = true;
      for (const out of [...this.#outbound]) {
        if (out.streamId === undefined && !streamsLeft) continue;
        const result = out.pump(this.#io);
        if (out.streamId !== undefined && !this.#handlers.has(out.streamId)) this.#handlers.set(out.streamId, { kind: "group-out", group: out });
        if (result === "no-stream") streamsLeft = false;
        if (result === "done") this.#retire(out);
      }
    } finally {
      this.#flushing = false;
    }
  }

  #retire(out: OutboundGroup): void {
    const at = this.#outbound.indexOf(out);
    if (at >= 0) this.#outbound.splice(at, 1);
    if (out.streamId !== undefined) this.#handlers.delete(out.streamId);
    const owner = this.#outboundOwner.get(out);
    this.#outboundOwner.delete(out);
    if (owner !== undefined) {
      owner.openGroups -= 1;
      this.#maybeFinish(owner);
    }
  }

  #maybeFinish(sub: ServedSubscription): void {
    if (!sub.ended || sub.openGroups > 0 || !this.#served.has(sub)) return;
    // Every group owed is sent: FIN the subscribe stream, which ends the subscription cleanly.
    this.#served.delete(sub);
    this.#stats.subscription(-1);
    sub.close();
    this.#handlers.delete(sub.streamId);
    this.#io.write(sub.streamId, new Uint8Array(0), true);
  }

  /** Ends a served subscription: FIN (code undefined) or reset with `code`; its groups stop. */
  #endServed(sub: ServedSubscription, code: number | undefined): void {
    if (!this.#served.delete(sub)) return;
    this.#stats.subscription(-1);
    sub.close();
    this.#handlers.delete(sub.streamId);
    for (const [out, owner] of [...this.#outboundOwner]) {
      if (owner !== sub) continue;
      out.abandon(this.#io, RelayCode.Cancel);
      this.#retire(out);
    }
    if (code === undefined) this.#io.write(sub.streamId, new Uint8Array(0), true);
    else this.#refuse(sub.streamId, true, code);
  }

  #teardown(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const sub of [...this.#served]) {
      sub.close();
      this.#stats.subscription(-1);
    }
    this.#served.clear();
    this.#outbound.length = 0;
    this.#outboundOwner.clear();
    for (const handler of this.#handlers.values()) if (handler.kind === "announce-serve") handler.close();
    for (const sub of this.#upstream.values()) sub.drop();
    this.#upstream.clear();
    this.#handlers.clear();
    this.#announced.clear();
    this.#origin.removeSource(this);
    this.#sink.closed(code, reason);
  }
}
