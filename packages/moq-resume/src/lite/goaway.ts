import type { BodyReader } from "./reader.js";
import { type LiteVersion, hasGoaway, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/**
 * GOAWAY (lite-04+): the sender is going away. An empty `uri` means just close (or reconnect
 * to the same endpoint); otherwise reconnect there and migrate subscriptions.
 */
export interface Goaway {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "goaway";
  /** Where to reconnect; empty: nowhere in particular. */
  readonly uri: string;
}

/** Encodes GOAWAY (size-prefixed). */
export function writeGoaway(w: ByteWriter, msg: Goaway, version: LiteVersion): void {
  if (!hasGoaway(version)) throw versionError("GOAWAY", version, true);
  w.sized(() => w.string(msg.uri));
}

/** Decodes a GOAWAY body; the URI is bounded by `maxStringLength` (8192 by default, as the draft). */
export function readGoaway(r: BodyReader, version: LiteVersion): Goaway {
  if (!hasGoaway(version)) throw versionError("GOAWAY", version, false);
  return { type: "goaway", uri: r.string() };
}
