import { hasGoaway, hasTrackStream, type LiteStreamReader, LiteStreamWriter, type LiteVersion, normalizePath } from "@handoff/moq-resume/lite";
import { type Permissions, RelayCode } from "../rules/index.js";
import type { ByteBudget, Origin, PlaceCopy, RouteSource, TrackInfoAnswer, UpstreamTrack } from "../origin/index.js";
import type { FramingEvent, FramingSession, QmuxVersion, StreamId } from "@handoff/qmux";
import { Announces } from "../announce/index.js";
import { budgetMemory, ControlBacklog, DEFAULT_SESSION_LIMITS, framingIo, NO_MEMORY, NO_STATS, refuse, type SessionContext, type SessionLimits, type SessionMemory, type SessionStats, type StreamIo } from "../context/index.js";
import { laterChanges, StreamDispatch } from "./dispatch.js";
import { Serving } from "../serve/index.js";
import { SetupExchange } from "./setup-stream.js";
import type { SessionOptions, SessionSink } from "./session-options.js";
import type { StreamTable } from "./stream-role.js";
import { Upstreams } from "../upstream/index.js";
import { pickSetupVersion, versionMode, type VersionMode } from "./version.js";

/**
 * One moq-lite session over one framing (one WebSocket or TCP connection): the connection's
 * lifecycle and version negotiation. Announces, served subscriptions, upstream subscriptions and
 * stream dispatch are delegated to their own modules. Sans-I/O apart from the sink it writes to;
 * the server drives it with bytes and ticks.
 */
export class LiteSession implements RouteSource {
  /** The session's id, unique in the relay (logs, split horizon). */
  readonly id: number;
  readonly #framing: FramingSession;
  readonly #origin: Origin;
  readonly #sink: SessionSink;
  #mode: VersionMode;
  /** Every live stream's role: the dispatcher routes by it, each module files its own. */
  readonly #roles: StreamTable = new Map();
  readonly #io: StreamIo;
  readonly #backlog: ControlBacklog;
  readonly #budget: ByteBudget | undefined;
  readonly #announces: Announces;
  readonly #serving: Serving;
  readonly #upstreams: Upstreams;
  readonly #dispatch: StreamDispatch;
  readonly #setup: SetupExchange;
  /** The connection's path scope; a lite-05 SETUP Path may narrow it. */
  #root: string;
  #version: LiteVersion | undefined;
  #writer: LiteStreamWriter | undefined;
  #transportReady = false;
  #setupStream: StreamId | undefined;
  #goawayReceived = false;
  readonly #defer: (flush: () => void) => void;
  #draining = false;
  #closed = false;
  /** An error escaped contained work: nothing more is done on behalf of others. */
  #faulted = false;
  readonly #fault: (where: string, error: unknown) => void;

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.#framing = options.framing;
    this.#origin = options.origin;
    this.#sink = options.sink;
    this.#mode = options.mode;
    this.#defer = options.defer ?? ((flush) => {
      flush();
    });
    this.#fault =
      options.fault ??
      (() => {
        this.#defer(() => {
          this.close(RelayCode.Internal, "internal error");
        });
      });
    if (options.mode.kind === "fixed") this.#setVersion(options.mode.version);
    const framing = this.#framing;
    const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
    this.#backlog = new ControlBacklog(
      (id, bytes, fin) => {
        const r = framing.write(id, bytes, fin);
        return r.ok ? r.accepted : undefined;
      },
      limits.maxControlBytes,
      () => {
        // Closed outside the write, which may run inside another connection's event.
        this.#defer(() => {
          this.close(RelayCode.TooMany, "peer does not read its control streams");
        });
      },
    );
    const backlog = this.#backlog;
    this.#io = framingIo(framing, backlog);
    const permissions: Permissions = options.permissions;
    const stats: SessionStats = options.stats ?? NO_STATS;
    const budget = options.budget;
    this.#budget = budget;
    const memory: SessionMemory = budget === undefined ? NO_MEMORY : budgetMemory(budget, this);
    // Getters, so the modules read the session's live state (version, closed) and not a copy.
    const version = (): LiteVersion | undefined => this.#version;
    const writer = (): LiteStreamWriter | undefined => this.#writer;
    const closed = (): boolean => this.#closed;
    this.#root = normalizePath(options.root);
    const root = (): string => this.#root;
    const ctx: SessionContext = {
      io: this.#io,
      origin: this.#origin,
      get root() {
        return root();
      },
      permissions,
      limits,
      stats,
      memory,
      cost: options.cost ?? 0,
      source: this,
      get version() {
        return version();
      },
      get writer() {
        return writer();
      },
      get closed() {
        return closed();
      },
      drain: () => {
        this.#drain();
      },
      close: (code, reason) => {
        this.close(code, reason);
      },
      contain: (where, fn) => {
        this.contain(where, fn);
      },
    };
    // The dispatcher, made below, files the role changes modules learn of outside their streams' events.
    const changes = laterChanges(() => this.#dispatch);
    // An announce the wire cannot carry ends a served stream from another session's event.
    this.#announces = new Announces(ctx, (id) => {
      changes.drop(id);
    });
    this.#serving = new Serving(ctx, changes, this.#defer);
    this.#upstreams = new Upstreams(ctx);
    this.#setup = new SetupExchange(ctx, this.#root, (narrowed, role) => {
      this.#root = narrowed;
      // A subscriber-only peer publishes nothing: no need to ask it.
      if (role !== "subscriber") this.#dispatch.requestAnnounces();
      this.#dispatch.resume();
    });
    this.#dispatch = new StreamDispatch(ctx, this.#roles, this.#announces, this.#serving, this.#upstreams, {
      setupData: (id, reader, bytes, fin) => {
        this.#onSetupData(id, reader, bytes, fin);
      },
      goaway: (uri) => {
        this.#onGoaway(uri);
      },
    }, this.#setup, this.#origin);
  }

  /** The negotiated version, once known. */
  get version(): LiteVersion | undefined {
    return this.#version;
  }

  /** The qmux wire version under the session (undefined on the legacy framing). */
  get qmuxVersion(): QmuxVersion | undefined {
    return this.#framing.version;
  }

  /** True once the session ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True once an error escaped work done for others (the session is then being closed). */
  get faulted(): boolean {
    return this.#faulted;
  }

  /** True once the peer sent GOAWAY. */
  get goawayReceived(): boolean {
    return this.#goawayReceived;
  }

  /** Downstream subscriptions being served. */
  get subscriptions(): number {
    return this.#serving.subscriptions;
  }

  /**
   * Outbound bytes this session holds for its peer: queued in the framing (waiting for credit),
   * encoded in group streams the framing has not taken yet, and control bytes waiting behind
   * them. Read-only, for tests and metrics.
   */
  get heldBytes(): number {
    return this.#framing.bufferedBytes + this.#serving.pendingBytes + this.#backlog.bytes;
  }

  /** Control bytes waiting for the peer to read (beyond the framing's buffers). */
  get controlBacklog(): number {
    return this.#backlog.bytes;
  }

  /** Group streams queued or being written to the peer. */
  get outboundGroups(): number {
    return this.#serving.outboundGroups;
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
    this.#dispatch.reconcile();
    this.#upstreams.tick(nowMs);
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
    this.#dispatch.sentGoaway(id);
    this.#io.send(id, writer.encodeAll([{ type: "stream_header", kind: "goaway" }, { type: "goaway", uri }]), false);
    this.#drain();
    return true;
  }

  // --- RouteSource ---

  /** Subscribes upstream to `track` of `path` on this session's peer, for the origin's shared track (see {@link RouteSource.subscribeUpstream}). */
  subscribeUpstream(path: string, track: string, priority: number, place: PlaceCopy): UpstreamTrack | undefined {
    // Asked from a subscriber's event: a failure here is this session's, and the track gets no copy from it.
    let upstream: UpstreamTrack | undefined;
    this.contain("subscribe-upstream", () => {
      upstream = this.#dispatch.subscribeUpstream(path, track, priority, place);
    });
    return upstream;
  }

  /** Asks this session's peer for the info of `track` of `path` (see {@link RouteSource.askTrackInfo}). */
  askTrackInfo(path: string, track: string, answer: TrackInfoAnswer): boolean {
    // Asked from a subscriber's event, like subscribeUpstream.
    let asked = false;
    this.contain("track-info-upstream", () => {
      asked = this.#dispatch.askTrackInfo(path, track, answer);
    });
    return asked;
  }

  /** Runs `fn`, work of this session done from another connection's event or a timer: an error escaping it fails this session only. */
  contain(where: string, fn: () => void): void {
    if (this.#closed || this.#faulted) return;
    try {
      fn();
    } catch (error) {
      this.#faulted = true;
      this.#fault(where, error);
    }
  }

  // --- event loop ---

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
        // lite-05 exchanges SETUPs first; announces are asked for once the peer's is read.
        if (this.#version !== undefined && hasTrackStream(this.#version)) this.#setup.send();
        else if (this.#version !== undefined) this.#dispatch.requestAnnounces();
        return;
      case "stream-opened":
        this.#onStreamOpened(event.streamId, event.bidi);
        return;
      case "stream-data":
        this.#dispatch.data(event.streamId, event.bytes, event.fin);
        return;
      case "stream-reset":
      case "stop-sending":
        // Our sending side is reset by the framing on STOP_SENDING: nothing waiting goes out.
        if (event.kind === "stop-sending") this.#backlog.drop(event.streamId);
        this.#dispatch.reset(event.streamId, event.code, event.kind === "stop-sending");
        return;
      case "datagram":
        // qmux-01/02 DATAGRAM frames: a lite-05 single-frame group for one of our upstream subscriptions.
        this.#upstreams.receiveDatagram(event.bytes);
        return;
      case "writable":
        this.#backlog.writable(event.streamId);
        this.#dispatch.streamWritable(event.streamId);
        this.#serving.flush();
        this.#dispatch.writable();
        return;
      case "streams-available":
        this.#serving.streamsAvailable();
        this.#serving.flush();
        this.#dispatch.writable();
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

  // --- version choice ---

  #setVersion(version: LiteVersion): void {
    this.#version = version;
    this.#writer = new LiteStreamWriter(version);
    this.#sink.version?.(version);
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

  #onStreamOpened(id: StreamId, bidi: boolean): void {
    const version = this.#version;
    if (version !== undefined) {
      this.#dispatch.opened(id, bidi, version);
      return;
    }
    if (this.#mode.kind === "setup" && bidi && this.#setupStream === undefined) {
      this.#setupStream = id;
      this.#dispatch.setupStream(id);
      return;
    }
    // Nothing but the SETUP may come before the version is known.
    refuse(this.#io, id, bidi, RelayCode.Version);
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
      this.#io.send(id, new LiteStreamWriter(version).encode({ type: "server_setup", version, parameters: [] }), false);
      if (this.#transportReady) this.#dispatch.requestAnnounces();
    }
  }

  #onGoaway(uri: string): void {
    if (this.#goawayReceived) {
      // One GOAWAY per session: a second is a protocol violation.
      this.close(RelayCode.ProtocolViolation, "second GOAWAY");
      return;
    }
    this.#goawayReceived = true;
    this.#sink.goaway?.(uri);
  }

  // --- teardown ---

  #teardown(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#serving.teardown();
    this.#dispatch.teardown();
    this.#upstreams.teardown();
    this.#backlog.clear();
    this.#dispatch.release();
    this.#budget?.release(this);
    this.#announces.forget();
    this.#origin.removeSource(this);
    this.#sink.closed(code, reason);
  }
}
