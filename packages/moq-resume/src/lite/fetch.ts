import type { LiteLimits } from "./limits.js";
import { writePath } from "./path.js";
import type { BodyReader } from "./reader.js";
import { malformed } from "./errors.js";
import { type LiteVersion, hasFrameBounds, isLegacy, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/**
 * FETCH (lite-03+ message; the reference serves the fetch stream on lite-05+ only): one group
 * of a track. The reply is bare FRAMEs on the same stream, then FIN; an error is a reset.
 */
export interface Fetch {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "fetch";
  /** The broadcast's path. */
  readonly broadcast: string;
  /** The track's name within the broadcast. */
  readonly track: string;
  /** Send priority against the session's other streams (0..255, higher first). */
  readonly priority: number;
  /** The sequence number of the group to return. */
  readonly group: number;
  /** moq-lite-06: the first frame to return (0 or absent: from the start of the group). */
  readonly startFrame?: number;
  /** moq-lite-06: the last frame to return, inclusive (absent: through the end). */
  readonly endFrame?: number | undefined;
}

/** Encodes FETCH (size-prefixed). */
export function writeFetch(w: ByteWriter, msg: Fetch, version: LiteVersion, limits: LiteLimits): void {
  if (isLegacy(version)) throw versionError("FETCH", version, true);
  w.sized(() => {
    writePath(w, msg.broadcast, limits);
    w.string(msg.track).u8(msg.priority).varint(msg.group, "group");
    const startFrame = msg.startFrame ?? 0;
    if (hasFrameBounds(version)) w.varint(startFrame, "startFrame").optional(msg.endFrame, "endFrame");
    // An older peer would serve the whole group, frames the caller excluded included.
    else if (startFrame !== 0 || msg.endFrame !== undefined) throw versionError("FETCH frame bounds", version, true);
  });
}

/** Decodes a FETCH body. */
export function readFetch(r: BodyReader, version: LiteVersion): Fetch {
  if (isLegacy(version)) throw versionError("FETCH", version, false);
  const broadcast = r.path();
  const track = r.string();
  const priority = r.u8();
  const group = r.varint();
  if (!hasFrameBounds(version)) return { type: "fetch", broadcast, track, priority, group };
  const startFrame = r.varint();
  const endFrame = r.optional();
  if (endFrame !== undefined && endFrame < startFrame) throw malformed("invalid_value", "FETCH frame range ends before it starts");
  return { type: "fetch", broadcast, track, priority, group, startFrame, endFrame };
}
