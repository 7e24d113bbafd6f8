import type { TrackInfo as ModelTrackInfo } from "@handoff/moq-resume";
import { joinPath, type LiteStreamReader, type Track, type TrackInfo } from "@handoff/moq-resume/lite";
import { allowed } from "../auth/permissions.js";
import type { StreamId } from "@handoff/qmux";
import type { SessionContext } from "./context.js";
import { RelayCode } from "./limits.js";
import { type AnsweredRole, type IgnoreRole, type RoleTable, turnDown } from "./role-table.js";
import { UNADVERTISED_TRACK_INFO } from "./track-query.js";

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
 * the upstream's code. The stream waits for the answer; the peer may give up meanwhile.
 */
export function serveTrack(ctx: SessionContext, roles: RoleTable<TrackServeRole | AnsweredRole | IgnoreRole>, id: StreamId, reader: LiteStreamReader, msg: Track): void {
  const writer = ctx.writer;
  if (writer === undefined) return;
  const path = joinPath(ctx.root, msg.broadcast);
  const code = !allowed(ctx.permissions.subscribe, path)
    ? RelayCode.Unauthorized
    : ctx.origin.routes(path).length === 0
      ? RelayCode.NotFound
      : undefined;
  if (code !== undefined) {
    turnDown(ctx.io, roles, id, reader, code);
    return;
  }
  const handler: TrackServeRole = { kind: "track-serve", reader, cancel: noop };
  roles.set(id, handler);
  const cancel = ctx.origin.trackInfo(path, msg.track, ctx.source, (result) => {
    // Usually answered from the upstream session's event: contained to this session.
    ctx.contain("track-info", () => {
      if (ctx.closed || roles.get(id) !== handler) return;
      if (result.ok) {
        roles.set(id, { kind: "answered", reader });
        ctx.io.send(id, writer.encode(trackInfoMessage(result.info)), true);
      } else turnDown(ctx.io, roles, id, reader, result.code ?? RelayCode.NotFound);
      ctx.drain();
    });
  });
  if (roles.get(id) === handler) handler.cancel = cancel;
}

function noop(): void {
  // Replaced once the query is registered.
}
