import { hasTrackStream, LiteStreamReader, stripPathPrefix, type LiteVersion } from "@handoff/moq-resume/lite";
import { type TrackInfoAnswer, type TrackInfoResult, UNADVERTISED_TRACK_INFO } from "../origin/index.js";
import type { StreamId } from "@handoff/qmux";
import { refuse, type SessionContext } from "../context/index.js";

/** The role of a TRACK stream we opened on the peer, waiting for its TRACK_INFO. */
export interface TrackQueryRole {
  readonly kind: "track-query";
  readonly query: TrackQuery;
}

/**
 * A TRACK stream the relay opened on its peer (lite-05+) to learn a track's info: the peer
 * answers one TRACK_INFO and FINs. The answer is given once: the info, the peer's reset code,
 * or "gone" when the session ends first.
 */
export class TrackQuery {
  readonly #reader: LiteStreamReader;
  readonly #answer: TrackInfoAnswer;
  #settled = false;

  constructor(version: LiteVersion, answer: TrackInfoAnswer) {
    this.#reader = new LiteStreamReader({ role: "opened", kind: "track", version });
    this.#answer = answer;
  }

  /** Bytes of the peer's reply not decoded yet. */
  get buffered(): number {
    return this.#reader.buffered;
  }

  /** Bytes (and FIN) on the TRACK stream `id`; false once the stream is over (the dispatcher then forgets it). */
  receive(ctx: SessionContext, id: StreamId, bytes: Uint8Array, fin: boolean): boolean {
    this.#reader.push(bytes);
    if (fin) this.#reader.end();
    for (;;) {
      const step = this.#reader.next();
      switch (step.kind) {
        case "need_more":
          return true;
        case "message":
          if (step.message.type === "track_info") {
            const msg = step.message;
            // Our side is done too once the reply is in.
            ctx.io.send(id, new Uint8Array(0), true);
            this.#settle({ ok: true, info: { priority: msg.priority, ordered: msg.ordered, maxLatencyMs: msg.maxLatency, timescale: msg.timescale } });
          }
          continue;
        case "end":
          // A FIN without TRACK_INFO answers nothing: the track is not there.
          this.#settle({ ok: false, code: undefined });
          return false;
        case "error":
          refuse(ctx.io, id, true, step.error.code);
          this.#settle({ ok: false, code: step.error.code });
          return false;
        default: {
          const never: never = step;
          throw new Error(`unexpected read step ${JSON.stringify(never)}`);
        }
      }
    }
  }

  /** The peer reset the stream (it does not know the track, or failed); the dispatcher forgets it. */
  reset(ctx: SessionContext, id: StreamId, code: number, stopSending: boolean): void {
    if (!stopSending) ctx.io.reset(id, code);
    this.#settle({ ok: false, code });
  }

  /** The session ended before the answer: another route may be asked. */
  gone(): void {
    this.#settle({ ok: false, code: undefined, gone: true });
  }

  #settle(result: TrackInfoResult): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#answer(result);
  }
}

/**
 * Asks the peer for the info of `track` of `path` (a route source's `askTrackInfo`): returns the
 * TRACK stream it opened with its role, for the dispatcher to file; true when answered at once (a
 * version without the TRACK stream: {@link UNADVERTISED_TRACK_INFO}), false when not asked.
 */
export function askTrackInfo(ctx: SessionContext, path: string, track: string, answer: TrackInfoAnswer): { readonly stream: StreamId; readonly role: TrackQueryRole } | boolean {
  const version = ctx.version;
  const writer = ctx.writer;
  if (ctx.closed || version === undefined || writer === undefined) return false;
  const suffix = stripPathPrefix(ctx.root, path);
  if (suffix === undefined) return false;
  if (!hasTrackStream(version)) {
    answer({ ok: true, info: UNADVERTISED_TRACK_INFO });
    return true;
  }
  const id = ctx.io.open(true);
  if (id === undefined) return false;
  ctx.io.send(id, writer.encodeAll([{ type: "stream_header", kind: "track" }, { type: "track", broadcast: suffix, track }]), false);
  return { stream: id, role: { kind: "track-query", query: new TrackQuery(version, answer) } };
}
