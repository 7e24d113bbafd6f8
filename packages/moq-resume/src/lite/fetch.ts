import type { LiteLimits } from "./limits.js";
import { writePath } from "./path.js";
import type { BodyReader } from "./reader.js";
import { type LiteVersion, isLegacy, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/**
 * FETCH (lite-03+ message; the reference serves the fetch stream on lite-05+ only): one group
 * of a track. The reply is bare FRAMEs on the same stream, then FIN; an error is a reset.
 */
export interface Fetch {
  readonly type: "fetch";
  readonly broadcast: string;
  readonly track: string;
  readonly priority: number;
  readonly group: number;
}

/** Encodes FETCH (size-prefixed). */
export function writeFetch(w: ByteWriter, msg: Fetch, version: LiteVersion, limits: LiteLimits): void {
  if (isLegacy(version)) throw versionError("FETCH", version, true);
  w.sized(() => {
    writePath(w, msg.broadcast, limits);
    w.string(msg.track).u8(msg.priority).varint(msg.group, "group");
  });
}

/** Decodes a FETCH body. */
export function readFetch(r: BodyReader, version: LiteVersion): Fetch {
  if (isLegacy(version)) throw versionError("FETCH", version, false);
  const broadcast = r.path();
  const track = r.string();
  const priority = r.u8();
  const group = r.varint();
  return { type: "fetch", broadcast, track, priority, group };
}
