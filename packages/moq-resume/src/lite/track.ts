import { encodeError, malformed } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import { writePath } from "./path.js";
import type { BodyReader } from "./reader.js";
import { type LiteVersion, hasTrackStream, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/** TRACK (lite-05): ask for a track's immutable properties without subscribing. */
export interface Track {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "track";
  /** The broadcast's path. */
  readonly broadcast: string;
  /** The track's name within the broadcast. */
  readonly track: string;
}

/**
 * TRACK_INFO (lite-05): the publisher's reply. `maxLatency` in ms; `timescale` (units per
 * second of frame timestamps) is never zero.
 */
export interface TrackInfo {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "track_info";
  /** The track's default send priority (0..255, higher first). */
  readonly priority: number;
  /** Whether the track's groups are meant to be delivered in order. */
  readonly ordered: boolean;
  /** The track's latency bound in ms; 0: none. */
  readonly maxLatency: number;
  /** Frame timestamp units per second. */
  readonly timescale: number;
}

/** Encodes TRACK (size-prefixed). */
export function writeTrack(w: ByteWriter, msg: Track, version: LiteVersion, limits: LiteLimits): void {
  if (!hasTrackStream(version)) throw versionError("TRACK", version, true);
  w.sized(() => {
    writePath(w, msg.broadcast, limits);
    w.string(msg.track);
  });
}

/** Decodes a TRACK body. */
export function readTrack(r: BodyReader, version: LiteVersion): Track {
  if (!hasTrackStream(version)) throw versionError("TRACK", version, false);
  const broadcast = r.path();
  const track = r.string();
  return { type: "track", broadcast, track };
}

/** Encodes TRACK_INFO (size-prefixed). */
export function writeTrackInfo(w: ByteWriter, msg: TrackInfo, version: LiteVersion): void {
  if (!hasTrackStream(version)) throw versionError("TRACK_INFO", version, true);
  if (msg.timescale === 0) throw encodeError("invalid_value", "timescale must be non-zero");
  w.sized(() => w.u8(msg.priority).bool(msg.ordered).varint(msg.maxLatency, "maxLatency").varint(msg.timescale, "timescale"));
}

/** Decodes a TRACK_INFO body; a zero timescale is invalid, as in the reference. */
export function readTrackInfo(r: BodyReader, version: LiteVersion): TrackInfo {
  if (!hasTrackStream(version)) throw versionError("TRACK_INFO", version, false);
  const priority = r.u8();
  const ordered = r.u8() !== 0;
  const maxLatency = r.varint();
  const timescale = r.varint();
  if (timescale === 0) throw malformed("invalid_value", "timescale must be non-zero");
  return { type: "track_info", priority, ordered, maxLatency, timescale };
}
