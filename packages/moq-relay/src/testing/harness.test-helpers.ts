/**
 * Test doubles for the session's modules: a fake {@link StreamIo} that records what the modules
 * write, counting stats, and a harness wiring a {@link SessionContext} to real modules (serving,
 * upstreams, announces) and a real origin, the way {@link LiteSession} does, but with no framing.
 */
import { ManualClock } from "@handoff/seqlog";
import { LITE_04, type LiteMessage, LiteStreamReader, type LiteStreamReaderOptions, LiteStreamWriter, type LiteVersion, type Subscribe } from "@handoff/moq-resume/lite";
import { ALLOW_ALL, type Permissions } from "../rules/permissions.js";
import { Origin } from "../origin/origin.js";
import type { PlaceCopy, RouteSource, UpstreamTrack } from "../origin/route.js";
import { fakeSource, type FakeSource } from "../origin/test-source.test-helpers.js";
import { concatBytes, type StreamId } from "@handoff/qmux";
import type { InboundGroup } from "../upstream/inbound-group.js";
import type { UpstreamSubscription } from "../upstream/upstream-subscription.js";
import { Announces } from "../announce/announces.js";
import type { SessionContext } from "../context/context.js";
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from "../context/limits.js";
import { NO_MEMORY } from "../context/memory.js";
import type { ServedSubscription } from "../serve/served-subscription.js";
import { Serving } from "../serve/serving.js";
import type { SessionStats } from "../context/stats.js";
import type { StreamIo } from "../context/stream-io.js";
import { askTrackInfo } from "../upstream/track-query.js";
import type { StreamRole, StreamTable } from "../session/stream-role.js";
import type { RoleChanges } from "../context/role-table.js";
import { Upstreams } from "../upstream/upstreams.js";

/** What the fake framing saw on one stream. */
export interface FakeStream {
  /** Accepted bytes, one entry per write (the very objects written when accepted whole). */
  readonly chunks: Uint8Array[];
  /** The parts accepted, as written: the very objects (a write of parts is one chunk but several parts). */
  readonly parts: Uint8Array[];
  /** True once a write with FIN was accepted whole. */
  fin: boolean;
  /** Codes of our resets. */
  readonly resets: number[];
  /** Codes of our STOP_SENDINGs. */
  readonly stops: number[];
}

/** One call the modules made on the fake framing, in order. */
export type IoCall =
  | { readonly op: "open"; readonly id: StreamId; readonly bidi: boolean }
  | { readonly op: "write"; readonly id: StreamId; readonly bytes: number; readonly fin: boolean }
  | { readonly op: "reset"; readonly id: StreamId; readonly code: number }
  | { readonly op: "stop"; readonly id: StreamId; readonly code: number };

/** A {@link StreamIo} that records every call, with settable stream and byte credit. */
export class FakeIo implements StreamIo {
  /** Every call, in order. */
  readonly log: IoCall[] = [];
  readonly #streams = new Map<StreamId, FakeStream>();
  /** Bidi streams `open` may still hand out. */
  bidiLeft = Number.POSITIVE_INFINITY;
  /** Uni streams `open` may still hand out. */
  uniLeft = Number.POSITIVE_INFINITY;
  /** Bytes `write` may still accept, over all streams. */
  credit = Number.POSITIVE_INFINITY;
  // Server-initiated ids in QUIC numbering, so they never clash with the peer's (0, 2, 4...).
  #nextBidi = 1;
  #nextUni = 3;

  /** @inheritdoc */
  open(bidi: boolean): StreamId | undefined {
    if ((bidi ? this.bidiLeft : this.uniLeft) <= 0) return undefined;
    let id: StreamId;
    if (bidi) {
      this.bidiLeft -= 1;
      id = this.#nextBidi;
      this.#nextBidi += 4;
    } else {
      this.uniLeft -= 1;
      id = this.#nextUni;
      this.#nextUni += 4;
    }
    this.stream(id);
    this.log.push({ op: "open", id, bidi });
    return id;
  }

  /** @inheritdoc */
  write(id: StreamId, bytes: Uint8Array | readonly Uint8Array[], fin: boolean): number {
    const parts = bytes instanceof Uint8Array ? [bytes] : bytes;
    const total = parts.reduce((n, p) => n + p.length, 0);
    const accepted = Math.min(total, this.credit);
    this.credit -= accepted;
    const stream = this.stream(id);
    // The parts themselves, as the framing would queue them (tests compare buffers by identity),
    // and what was accepted as one chunk per write.
    let left = accepted;
    const taken: Uint8Array[] = [];
    for (const part of parts) {
      if (left === 0) break;
      const take = Math.min(part.length, left);
      if (take > 0) taken.push(take === part.length ? part : part.subarray(0, take));
      left -= take;
    }
    stream.parts.push(...taken);
    const [only] = taken;
    if (only !== undefined) stream.chunks.push(taken.length === 1 ? only : concatBytes(taken, accepted));
    const whole = accepted === total;
    if (whole && fin) stream.fin = true;
    this.log.push({ op: "write", id, bytes: accepted, fin: whole && fin });
    return accepted;
  }

  /** Takes control bytes whole, whatever the credit (the backlog has tests of its own). */
  send(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    const stream = this.stream(id);
    if (bytes.length > 0) stream.chunks.push(bytes);
    if (fin) stream.fin = true;
    this.log.push({ op: "write", id, bytes: bytes.length, fin });
  }

  /** @inheritdoc */
  reset(id: StreamId, code: number): void {
    this.stream(id).resets.push(code);
    this.log.push({ op: "reset", id, code });
  }

  /** @inheritdoc */
  stopSending(id: StreamId, code: number): void {
    this.stream(id).stops.push(code);
    this.log.push({ op: "stop", id, code });
  }

  /** The record of stream `id` (created empty on first use). */
  stream(id: StreamId): FakeStream {
    let stream = this.#streams.get(id);
    if (stream === undefined) {
      stream = { chunks: [], parts: [], fin: false, resets: [], stops: [] };
      this.#streams.set(id, stream);
    }
    return stream;
  }

  /** The streams we opened, in order. */
  opened(bidi: boolean): StreamId[] {
    return this.log.flatMap((call) => (call.op === "open" && call.bidi === bidi ? [call.id] : []));
  }

  /** Everything written on stream `id`, decoded as `options` says. */
  messages(id: StreamId, options: LiteStreamReaderOptions): LiteMessage[] {
    const reader = new LiteStreamReader(options);
    for (const chunk of this.stream(id).chunks) reader.push(chunk);
    return reader.drain().messages;
  }

  /** The index in {@link log} of the FIN written on `id` (-1 when none). */
  finAt(id: StreamId): number {
    return this.log.findIndex((call) => call.op === "write" && call.id === id && call.fin);
  }
}

/** Stats that count. */
export class CountingStats implements SessionStats {
  groupsIn = 0;
  groupsOut = 0;
  framesIn = 0;
  framesOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Live subscriptions (+1 / -1). */
  subscriptions = 0;
  skips = 0;
  oversizes = 0;
  drops = 0;
  incompletes = 0;
  /** Codes of our group streams' resets, in order. */
  readonly groupResets: number[] = [];

  /** @inheritdoc */
  group(direction: "in" | "out"): void {
    if (direction === "in") this.groupsIn += 1;
    else this.groupsOut += 1;
  }

  /** @inheritdoc */
  frame(direction: "in" | "out", bytes: number): void {
    if (direction === "in") {
      this.framesIn += 1;
      this.bytesIn += bytes;
    } else {
      this.framesOut += 1;
      this.bytesOut += bytes;
    }
  }

  /** @inheritdoc */
  dropped(): void {
    this.drops += 1;
  }

  /** @inheritdoc */
  incomplete(): void {
    this.incompletes += 1;
  }

  /** @inheritdoc */
  groupReset(code: number): void {
    this.groupResets.push(code);
  }

  /** @inheritdoc */
  subscription(delta: 1 | -1): void {
    this.subscriptions += delta;
  }

  /** @inheritdoc */
  skipped(): void {
    this.skips += 1;
  }

  /** @inheritdoc */
  oversized(): void {
    this.oversizes += 1;
  }
}

/** Options of a {@link Harness}. */
export interface HarnessOptions {
  /** The negotiated version (default lite-04); undefined: not negotiated yet. */
  readonly version?: LiteVersion | undefined;
  readonly root?: string;
  readonly permissions?: Permissions;
  readonly limits?: Partial<SessionLimits>;
  /** Session id of the harness as a route source (default 1). */
  readonly id?: number;
}

/**
 * A session context wired to real serving, upstream and announce modules and a real origin, as
 * {@link LiteSession} wires them, over a {@link FakeIo}. `close` only records (and marks closed).
 */
export class Harness {
  readonly io = new FakeIo();
  /** The stream table, as the session's dispatcher holds it. */
  readonly handlers: StreamTable = new Map();
  /** The dispatcher's filing of role changes, over {@link handlers}. */
  readonly changes: RoleChanges<StreamRole> = {
    file: (id, role) => {
      this.handlers.set(id, role);
    },
    drop: (id) => {
      this.handlers.delete(id);
    },
    holds: (id, role) => this.handlers.get(id) === role,
  };
  readonly stats = new CountingStats();
  readonly origin = new Origin(4242, { clock: new ManualClock() });
  readonly limits: SessionLimits;
  readonly serving: Serving;
  readonly upstreams: Upstreams;
  readonly announces: Announces;
  readonly ctx: SessionContext;
  /** The session as the origin sees it. */
  readonly source: RouteSource;
  /** Every `close` call. */
  readonly closes: { readonly code: number; readonly reason: string }[] = [];
  drains = 0;
  version: LiteVersion | undefined;
  writer: LiteStreamWriter | undefined;
  closed = false;

  constructor(options: HarnessOptions = {}) {
    this.version = "version" in options ? options.version : LITE_04;
    this.writer = this.version === undefined ? undefined : new LiteStreamWriter(this.version);
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
    const permissions = options.permissions ?? ALLOW_ALL;
    const root = options.root ?? "";
    // Getters, so the modules read the harness's live state (version, closed) and not a copy.
    const version = (): LiteVersion | undefined => this.version;
    const writer = (): LiteStreamWriter | undefined => this.writer;
    const closed = (): boolean => this.closed;
    this.source = {
      id: options.id ?? 1,
      subscribeUpstream: (path: string, track: string, priority: number, place: PlaceCopy): UpstreamTrack | undefined =>
        this.subscribeUpstream(path, track, priority, place),
      askTrackInfo: (path, track, answer) => {
        const asked = askTrackInfo(this.ctx, path, track, answer);
        if (typeof asked === "boolean") return asked;
        this.handlers.set(asked.stream, asked.role);
        return true;
      },
    };
    this.ctx = {
      io: this.io,
      origin: this.origin,
      root,
      permissions,
      limits: this.limits,
      stats: this.stats,
      memory: NO_MEMORY,
      cost: 0,
      source: this.source,
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
        this.drains += 1;
      },
      close: (code, reason) => {
        this.closes.push({ code, reason });
        this.closed = true;
      },
      contain: (_where, fn) => {
        fn();
      },
    };
    // The harness defers nothing: a kick flushes at once.
    this.serving = new Serving(this.ctx, this.changes, (flush) => {
      flush();
    });
    this.upstreams = new Upstreams(this.ctx);
    this.announces = new Announces(this.ctx, (id) => {
      this.handlers.delete(id);
    });
  }

  /** Subscribes upstream as the dispatcher does: the role Upstreams gives the SUBSCRIBE stream is filed. */
  subscribeUpstream(path: string, track: string, priority: number, place: PlaceCopy): UpstreamTrack | undefined {
    const opened = this.upstreams.subscribe(path, track, priority, place);
    if (opened === undefined) return undefined;
    this.handlers.set(opened.stream, opened.role);
    return opened.upstream;
  }

  /** Bytes on our SUBSCRIBE stream `id`, handled as the dispatcher does (the role goes when it ends). */
  receiveUpstream(id: StreamId, sub: UpstreamSubscription, bytes: Uint8Array, fin: boolean): void {
    if (this.upstreams.receive(id, sub, bytes, fin) === "end") this.handlers.delete(id);
  }

  /** The peer reset our SUBSCRIBE stream `id`, handled as the dispatcher does. */
  resetUpstream(id: StreamId, sub: UpstreamSubscription, code: number, stopSending: boolean): void {
    this.handlers.delete(id);
    this.upstreams.reset(id, sub, code, stopSending);
  }

  /** Bytes on the peer's group stream `id`, handled as the dispatcher does. */
  receiveGroup(id: StreamId, group: InboundGroup, bytes: Uint8Array, fin: boolean): void {
    if (this.upstreams.receiveGroup(id, group, bytes, fin) === "end") this.handlers.delete(id);
  }

  /** A fake publisher announcing `path` to the origin (the peer's SUBSCRIBEs are routed to it). */
  publisher(path: string, id = 99): FakeSource {
    const source = fakeSource(id);
    this.origin.announce(path, source, []);
    return source;
  }

  /** Serves `msg` as if it came on the peer's bidi stream `id`, filing the role as the dispatcher does. */
  serve(id: StreamId, msg: Subscribe): void {
    const version = this.version ?? LITE_04;
    const role = this.serving.serve(id, new LiteStreamReader({ role: "accepted-bidi", version }), msg);
    if (role === "end") this.handlers.delete(id);
    else if (role !== "keep") this.handlers.set(id, role);
    if (typeof role === "object" && role.kind === "subscribe-serve" && role.sub !== undefined) this.serving.begin(role.sub);
  }

  /** The served subscription on stream `id` (throws when there is none). */
  served(id: StreamId): ServedSubscription {
    const handler = this.handlers.get(id);
    if (handler?.kind !== "subscribe-serve" || handler.sub === undefined) throw new Error(`no subscription on ${String(id)}`);
    return handler.sub;
  }

  /** Decoded messages the relay wrote on its uni (group) stream `id`. */
  groupMessages(id: StreamId): LiteMessage[] {
    return this.io.messages(id, { role: "accepted-uni", version: this.version ?? LITE_04 });
  }

  /** The subscribe id and sequence of every group stream opened, in opening order. */
  groupsSent(): { readonly subscribe: number; readonly sequence: number }[] {
    return this.io.opened(false).flatMap((id) => {
      const header = this.groupMessages(id)[1];
      return header?.type === "group" ? [{ subscribe: header.subscribe, sequence: header.sequence }] : [];
    });
  }
}

/** A SUBSCRIBE for `track` (default `video`) of `broadcast`, with `fields` overridden. */
export function subscribeMsg(id: number, broadcast: string, fields: Partial<Omit<Subscribe, "type" | "id" | "broadcast">> = {}): Subscribe {
  return { type: "subscribe", id, broadcast, track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined, ...fields };
}

/** Bytes of one payload byte per entry. */
export function payloads(...bytes: number[]): Uint8Array[] {
  return bytes.map((b) => Uint8Array.of(b));
}

/** Frame payloads among `messages` (first byte each), for compact assertions. */
export function frameBytes(messages: readonly LiteMessage[]): number[] {
  return messages.flatMap((m) => (m.type === "frame" ? [m.payload[0] ?? -1] : []));
}
