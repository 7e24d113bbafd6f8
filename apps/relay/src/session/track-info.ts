import { DEFAULT_TRACK_INFO, type TrackInfo as ModelTrackInfo } from "@handoff/moq-resume";
import { joinPath, type LiteStreamReader, type Track, type TrackInfo } from "@handoff/moq-resume/lite";
import { allowed } from "../auth/permissions.js";
import type { StreamId } from "../transport/index.js";
import { turnDown, type SessionContext } from "./context.js";
import { RelayCode } from "./limits.js";

/**
 * The TRACK_INFO for a track's model info. A track the relay holds no copy of yet gets the
 * model's defaults: priority 0, unordered, no latency bound, timescale 1000 (milliseconds).
 */
export function trackInfoMessage(info: ModelTrackInfo = DEFAULT_TRACK_INFO): TrackInfo {
  return {
    type: "track_info",
    priority: info.priority,
    ordered: info.ordered,
    maxLatency: info.maxLatencyMs,
    // The wire forbids 0; a copy made without a timescale falls back to the default.
    timescale: info.timescale > 0 ? info.timescale : DEFAULT_TRACK_INFO.timescale,
  };
}

/**
 * Answers a TRACK (lite-05) that came on accepted stream `id`: TRACK_INFO from the origin's copy
 * of the track, then FIN. A broadcast outside the grant is refused; one the origin cannot route
 * is reset with NotFound.
 */
export function serveTrack(ctx: SessionContext, id: StreamId, reader: LiteStreamReader, msg: Track): void {
  const writer = ctx.writer;
  if (writer === undefined) return;
  const path = joinPath(ctx.root, msg.broadcast);
  const code = !allowed(ctx.permissions.subscribe, path)
    ? RelayCode.Unauthorized
    : ctx.origin.routes(path).length === 0
      ? RelayCode.NotFound
      : undefined;
  if (code !== undefined) {
    turnDown(ctx, id, reader, code);
    return;
  }
  ctx.handlers.set(id, { kind: "answered", reader });
  ctx.io.send(id, writer.encode(trackInfoMessage(ctx.origin.cachedTrack(path, msg.track)?.info)), true);
}
