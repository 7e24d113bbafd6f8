import type { TrackInfo as ModelTrackInfo } from "@handoff/moq-resume";
import { joinPath, type LiteStreamReader, type Track, type TrackInfo } from "@handoff/moq-resume/lite";
import { allowed, RelayCode } from "../rules/index.js";
import type { StreamId } from "@handoff/qmux";
import { type AnsweredRole, type IgnoreRole, type RoleChanges, type SessionContext, type StreamFate, turnDown } from "../context/index.js";
import { UNADVERTISED_TRACK_INFO } from "../origin/index.js";

/** The role of a TRACK stream waiting for the publisher's info (asked upstream); `cancel` stops waiting. */
export interface TrackServeRole {
  readonly kind: "track-serve";
  readonly reader: LiteStreamReader;
  cancel: () => void;
}

/** The TRACK_INFO for a track's model info. */
export function trackInfoMessage(info: ModelTrackInfo): TrackInfo {
  return {
    type: "track_info",
    priority: info.priority,
    ordered: info.ordered,
    maxLatency: info.maxLatencyMs,
    // The wire forbids 0; a copy made without a timescale falls back to milliseconds.
    timescale: info.timescale > 0 ? info.timescale : UNADVERTISED_TRACK_INFO.timescale,
  };
}

/**
 * Answers a TRACK (lite-05) that came on accepted stream `id`: TRACK_INFO as the publisher gave
 * it (cached by the origin, or asked upstream now), then FIN. A broadcast outside the grant is
 * refused; one the origin cannot route is reset with NotFound, and a failed upstream query with
 * the upstream's code. Returns the stream's role for the dispatcher to file; the stream waits for
 * an answer that comes later ("track-serve", the peer may give up meanwhile), and the answer's
 * role is then reported through `roles`.
 */
export function serveTrack(ctx: SessionContext, roles: RoleChanges<TrackServeRole | AnsweredRole | IgnoreRole>, id: StreamId, reader: LiteStreamReader, msg: Track): TrackServeRole | AnsweredRole | IgnoreRole | StreamFate {
  const writer = ctx.writer;
  if (writer === undefined) return "keep";
  const path = joinPath(ctx.root, msg.broadcast);
  const code = !allowed(ctx.permissions.subscribe, path)
    ? RelayCode.Unauthorized
    : ctx.origin.routes(path).length === 0
      ? RelayCode.NotFound
      : undefined;
  if (code !== undefined) return turnDown(ctx.io, id, reader, code);
  const handler: TrackServeRole = { kind: "track-serve", reader, cancel: noop };
  // An answer at hand (the origin's cache) comes before this returns: its role is the one returned.
  let waiting = false;
  let answered: AnsweredRole | IgnoreRole | undefined;
  const cancel = ctx.origin.trackInfo(path, msg.track, ctx.source, (result) => {
    // Usually answered from the upstream session's event: contained to this session.
    ctx.contain("track-info", () => {
      if (ctx.closed || (waiting && !roles.holds(id, handler))) return;
      let next: AnsweredRole | IgnoreRole;
      if (result.ok) {
        next = { kind: "answered", reader };
        ctx.io.send(id, writer.encode(trackInfoMessage(result.info)), true);
      } else next = turnDown(ctx.io, id, reader, result.code ?? RelayCode.NotFound);
      if (waiting) roles.file(id, next);
      else answered = next;
      ctx.drain();
    });
  });
  if (answered !== undefined) return answered;
  waiting = true;
  handler.cancel = cancel;
  return handler;
}

function noop(): void {
  // Replaced once the query is registered.
}
