import type { GroupReader } from "@handoff/moq-resume";
import { type Fetch, FrameEncoder, joinPath, type LiteStreamReader, type LiteVersion } from "@handoff/moq-resume/lite";
import { allowed, RelayCode } from "../rules/index.js";
import type { StreamId } from "@handoff/qmux";
import { type AnsweredRole, type IgnoreRole, type RoleChanges, type SessionContext, type StreamFate, type StreamIo, turnDown } from "../context/index.js";

/** Where FETCH finds its group: the origin's held copies. */
export interface GroupFetcher {
  /** A reader of group `sequence` of `track` of `path` from what the relay holds, if it holds it. */
  fetchGroup(path: string, track: string, sequence: number): GroupReader | undefined;
}

/** The role of a FETCH stream being answered with the group's frames. */
export interface FetchRole {
  readonly kind: "fetch-serve";
  readonly reader: LiteStreamReader;
  readonly fetch: FetchServe;
}

/** The roles a FETCH stream takes once served: being served, then answered (reading on to the peer's FIN). */
export type FetchRoles = RoleChanges<FetchRole | AnsweredRole>;

/** What one {@link FetchServe.pump} achieved. */
export type FetchProgress = "blocked" | "waiting" | "done";

/**
 * One FETCH being answered (lite-05): the group's frames as bare FRAMEs on the request stream,
 * then FIN; a group lost while being sent is a reset. A group still open is streamed as frames
 * arrive: `pump` again when the track wakes. Bytes the framing did not take wait here.
 */
export class FetchServe {
  readonly #frames: FrameEncoder;
  #pending: Uint8Array | undefined;
  #done = false;
  #release: (() => void) | undefined;
  /** True once the peer FINed its side (nothing more to read). */
  peerDone = false;

  readonly #io: StreamIo;
  readonly #reader: GroupReader;
  readonly #endFrame: number | undefined;

  constructor(
    io: StreamIo,
    /** The FETCH stream. */
    readonly streamId: StreamId,
    version: LiteVersion,
    reader: GroupReader,
    /** lite-06: the first frame to return (0: the group's start). */
    startFrame = 0,
    /** lite-06: the last frame to return, inclusive (undefined: through the group's end). */
    endFrame?: number,
  ) {
    this.#io = io;
    this.#reader = reader;
    this.#endFrame = endFrame;
    this.#frames = new FrameEncoder(version);
    if (startFrame > 0) reader.skipTo(startFrame);
  }

  /** The last frame asked for was written: FIN follows it. */
  #lastWritten = false;

  /** True once FIN or a reset was written. */
  get done(): boolean {
    return this.#done;
  }

  /** Gives the fetch the removal of its wake-up, run once it is done. */
  onDone(release: () => void): void {
    if (this.#done) release();
    else this.#release = release;
  }

  /** Writes every frame available now, as far as the framing takes them. */
  pump(): FetchProgress {
    if (this.#done) return "done";
    for (;;) {
      const pending = this.#pending;
      if (pending !== undefined) {
        const accepted = this.#io.write(this.streamId, pending, false);
        if (accepted < pending.length) {
          this.#pending = pending.subarray(accepted);
          return "blocked";
        }
        this.#pending = undefined;
      }
      if (this.#lastWritten) return this.#end();
      const event = this.#reader.readFrame();
      switch (event.kind) {
        case "frame":
          // The publisher's timestamp goes out unchanged; a lite-01..04 publisher's frame has none: 0.
          this.#pending = this.#frames.encode(event.payload, event.timestamp ?? 0);
          if (this.#endFrame !== undefined && event.index >= this.#endFrame) this.#lastWritten = true;
          continue;
        case "gap":
          continue;
        case "pending":
          return "waiting";
        case "end":
          return this.#end();
        case "lost":
          this.#io.reset(this.streamId, RelayCode.NotFound);
          this.#finish();
          return "done";
        default: {
          const never: never = event;
          throw new Error(`unexpected frame event ${JSON.stringify(never)}`);
        }
      }
    }
  }

  /** The peer gave up on the fetch (reset or STOP_SENDING), or the session ended: stop writing. */
  abandon(code: number | undefined): void {
    if (this.#done) return;
    this.#pending = undefined;
    if (code !== undefined) this.#io.reset(this.streamId, code);
    this.#finish();
  }

  #end(): FetchProgress {
    this.#io.write(this.streamId, new Uint8Array(0), true);
    // The reader is done with the group even when the fetch stopped short of its end.
    this.#reader.close();
    this.#finish();
    return "done";
  }

  #finish(): void {
    this.#done = true;
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
}

/**
 * Serves a FETCH that came on accepted stream `id`: refused outside the peer's grant, past
 * `maxSubscriptions` fetches open at once (`live`: a budget of their own, beside the
 * subscriptions), or with NotFound for a group the relay does not hold. Returns the stream's role
 * for the dispatcher to file; `watch` wakes an open group's fetch as its track changes, and what
 * that settles is reported through `roles`.
 */
export function serveFetch(
  ctx: SessionContext,
  roles: FetchRoles,
  fetcher: GroupFetcher,
  watch: (path: string, track: string, listener: () => void) => (() => void) | undefined,
  live: number,
  id: StreamId,
  reader: LiteStreamReader,
  msg: Fetch,
): FetchRole | AnsweredRole | IgnoreRole | StreamFate {
  const version = ctx.version;
  if (version === undefined) return "keep";
  const path = joinPath(ctx.root, msg.broadcast);
  if (!allowed(ctx.permissions.subscribe, path)) return turnDown(ctx.io, id, reader, RelayCode.Unauthorized);
  if (live >= ctx.limits.maxSubscriptions) return turnDown(ctx.io, id, reader, RelayCode.TooMany);
  const group = fetcher.fetchGroup(path, msg.track, msg.group);
  if (group === undefined) return turnDown(ctx.io, id, reader, RelayCode.NotFound);
  const fetch = new FetchServe(ctx.io, id, version, group, msg.startFrame ?? 0, msg.endFrame);
  const role: FetchRole = { kind: "fetch-serve", reader, fetch };
  // The track wakes the fetch from the publisher's event: contained to this session.
  fetch.onDone(watch(path, msg.track, () => {
    if (ctx.closed) {
      fetch.abandon(undefined);
      return;
    }
    ctx.contain("fetch", () => {
      if (fetch.pump() === "done") fetchSettled(roles, id, role);
      ctx.drain();
    });
  }) ?? noop);
  return fetch.pump() === "done" ? fetchDone(role) : role;
}

/**
 * What follows a fetch that wrote its last byte: its stream is over once the peer's side is too
 * ("end"), or reads on to the peer's FIN.
 */
export function fetchDone(role: FetchRole): AnsweredRole | "end" {
  return role.fetch.peerDone ? "end" : { kind: "answered", reader: role.reader };
}

/** A fetch settled outside its stream's events: reports what follows, if the stream still has its role. */
export function fetchSettled(roles: FetchRoles, id: StreamId, role: FetchRole): void {
  if (!roles.holds(id, role)) return;
  const next = fetchDone(role);
  if (next === "end") roles.drop(id);
  else roles.file(id, next);
}

function noop(): void {
  // No track to watch: the group was complete when fetched, or will be reported lost.
}
