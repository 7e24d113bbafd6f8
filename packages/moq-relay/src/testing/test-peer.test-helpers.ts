import { ManualClock } from "@handoff/seqlog";
import { LITE_04, LiteStreamReader, LiteStreamWriter, type LiteMessage, type LiteVersion } from "@handoff/moq-resume/lite";
import { ALLOW_ALL, type Permissions } from "../rules/permissions.js";
import type { ByteBudget } from "../origin/byte-budget.js";
import { Origin } from "../origin/origin.js";
import { createFraming, type FramingEvent, type FramingSession, type QmuxVersion, type StreamId, type TransportParams } from "@handoff/qmux";
import type { SessionLimits } from "../context/limits.js";
import { LiteSession } from "../session/lite-session.js";
import type { SessionStats } from "../context/stats.js";
import type { VersionMode } from "../session/version.js";

/** A scripted client peer wired in memory to a server {@link LiteSession} (test helper). */
export class TestPeer {
  readonly framing: FramingSession;
  readonly session: LiteSession;
  readonly events: FramingEvent[] = [];
  readonly data = new Map<StreamId, Uint8Array[]>();
  readonly writer: LiteStreamWriter;
  closedWith: { code: number; reason: string } | undefined;
  goaways: string[] = [];
  readonly #consumed = new Map<StreamId, number>();

  constructor(
    readonly origin: Origin,
    options: {
      readonly version?: LiteVersion;
      readonly mode?: VersionMode;
      readonly permissions?: Permissions;
      readonly limits?: Partial<SessionLimits>;
      readonly stats?: SessionStats;
      readonly id?: number;
      /** Transport parameters the client advertises (e.g. a low uni stream limit). */
      readonly clientParams?: Partial<TransportParams>;
      /** The session's deferral of its flushes (default: at once). */
      readonly defer?: (flush: () => void) => void;
      /** Link cost of the routes the peer announces (default 0). */
      readonly cost?: number;
      /** What the session does when contained work fails (default: the session's own). */
      readonly fault?: (where: string, error: unknown) => void;
      /** False: the client returns no credit until {@link TestPeer.consumeAll} (a peer that stops reading). */
      readonly clientAutoConsume?: boolean;
      /** The relay's byte budget (default: none). */
      readonly budget?: ByteBudget;
      /** The qmux version both ends speak (default qmux-00; qmux-01/02 carry datagrams). */
      readonly qmux?: QmuxVersion;
      /** The relay's send buffers (default: the framing's). */
      readonly serverBuffers?: { readonly maxStreamBuffer?: number; readonly maxConnectionBuffer?: number };
    } = {},
  ) {
    const version = options.version ?? LITE_04;
    this.writer = new LiteStreamWriter(version);
    const qmux = options.qmux ?? "qmux-00";
    this.framing = createFraming(qmux, {
      role: "client",
      autoConsume: options.clientAutoConsume ?? true,
      ...(options.clientParams === undefined ? {} : { params: options.clientParams }),
    });
    this.session = new LiteSession({
      id: options.id ?? 1,
      framing: createFraming(qmux, { role: "server", autoConsume: true, ...options.serverBuffers }),
      mode: options.mode ?? { kind: "fixed", version },
      origin,
      root: "",
      permissions: options.permissions ?? ALLOW_ALL,
      limits: options.limits ?? {},
      ...(options.stats === undefined ? {} : { stats: options.stats }),
      ...(options.defer === undefined ? {} : { defer: options.defer }),
      ...(options.cost === undefined ? {} : { cost: options.cost }),
      ...(options.fault === undefined ? {} : { fault: options.fault }),
      ...(options.budget === undefined ? {} : { budget: options.budget }),
      sink: {
        send: (bytes) => {
          this.framing.receive(bytes);
          this.#flush();
        },
        closed: (code, reason) => {
          this.closedWith = { code, reason };
        },
        goaway: (uri) => this.goaways.push(uri),
      },
    });
    this.session.start();
    this.#flush();
  }

  /** Opens a bidi stream and writes `messages` on it. */
  open(messages: readonly LiteMessage[], bidi = true): StreamId {
    const r = this.framing.openStream(bidi);
    if (!r.ok) throw new Error("no stream");
    this.write(r.streamId, this.writer.encodeAll(messages));
    return r.streamId;
  }

  /** Writes raw bytes on a stream. */
  write(id: StreamId, bytes: Uint8Array, fin = false): void {
    this.framing.write(id, bytes, fin);
    this.#flush();
  }

  /** Decodes what the server wrote on a stream it opened (`kind` given) or on one we opened. */
  decode(id: StreamId, options: ConstructorParameters<typeof LiteStreamReader>[0]): LiteMessage[] {
    const reader = new LiteStreamReader(options);
    for (const chunk of this.data.get(id) ?? []) reader.push(chunk);
    return reader.drain().messages;
  }

  /** The streams the server opened, in order. */
  opened(bidi: boolean): StreamId[] {
    return this.events.flatMap((e) => (e.kind === "stream-opened" && e.bidi === bidi ? [e.streamId] : []));
  }

  /** Returns the credit of every byte received on stream `id` and not consumed yet (see `clientAutoConsume`). */
  consumeAll(id: StreamId): void {
    const received = (this.data.get(id) ?? []).reduce((n, chunk) => n + chunk.length, 0);
    const fresh = received - (this.#consumed.get(id) ?? 0);
    this.#consumed.set(id, received);
    this.framing.consume(id, fresh);
    this.#flush();
  }

  /** Delivers what the client's framing queued (after driving it directly). */
  pump(): void {
    this.#flush();
  }

  /** Resets seen on a stream. */
  resets(id: StreamId): number[] {
    return this.events.flatMap((e) => (e.kind === "stream-reset" && e.streamId === id ? [e.code] : []));
  }

  #flush(): void {
    for (let events = this.framing.poll(); events.length > 0; events = this.framing.poll()) {
      for (const e of events) {
        if (e.kind === "send") this.session.receive(e.bytes);
        else {
          this.events.push(e);
          if (e.kind === "stream-data") this.data.set(e.streamId, [...(this.data.get(e.streamId) ?? []), e.bytes]);
        }
      }
    }
  }
}

/** A fresh origin for tests. */
export function testOrigin(): Origin {
  return new Origin(4242, { clock: new ManualClock() });
}
