import type { BodyReader } from "./reader.js";
import { type LiteVersion, hasProbeRtt, isLegacy, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/**
 * PROBE (lite-03+): a bitrate target or report in bits/s, and on lite-04+ an RTT in ms.
 * 0 on the wire means unknown (undefined here); a known 0 is sent as 1, as the reference does.
 */
export interface Probe {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "probe";
  /** Bits per second; undefined: unknown. */
  readonly bitrate: number | undefined;
  /** Round-trip time in ms (lite-04+); undefined: unknown or not sent. */
  readonly rtt: number | undefined;
}

/** Encodes PROBE (size-prefixed). */
export function writeProbe(w: ByteWriter, msg: Probe, version: LiteVersion): void {
  if (isLegacy(version)) throw versionError("PROBE", version, true);
  w.sized(() => {
    w.varint(msg.bitrate === undefined ? 0 : Math.max(msg.bitrate, 1), "bitrate");
    if (hasProbeRtt(version)) w.varint(msg.rtt === undefined ? 0 : Math.max(msg.rtt, 1), "rtt");
  });
}

/** Decodes a PROBE body. */
export function readProbe(r: BodyReader, version: LiteVersion): Probe {
  if (isLegacy(version)) throw versionError("PROBE", version, false);
  const bitrate = r.varint();
  const rtt = hasProbeRtt(version) ? r.varint() : 0;
  return { type: "probe", bitrate: bitrate === 0 ? undefined : bitrate, rtt: rtt === 0 ? undefined : rtt };
}
