import type { FramingKind, FramingOptions } from "./events.js";
import { qmuxRecordStreamWire } from "./record-stream-wire.js";
import { REFERENCE_PARAMS } from "./transport-params.js";
import { legacyMessageWire, qmuxMessageWire, qmuxStreamWire, type Wire } from "./wire.js";

/**
 * The wire framing `kind` runs on over `options.carrier` (the combinations are listed at
 * `createFraming`). Chosen inside {@link FramingSession}'s constructor so its public signature
 * takes the kind, and the wire stays internal.
 */
export function wireFor(kind: FramingKind, options: FramingOptions): Wire {
  const carrier = options.carrier ?? "message";
  switch (kind) {
    case "qmux-00":
      return carrier === "stream" ? qmuxStreamWire() : qmuxMessageWire(options.maxMessageSize);
    case "qmux-01":
    case "qmux-02": {
      const records = options.params?.maxRecordSize ?? REFERENCE_PARAMS.maxRecordSize;
      if (carrier === "stream") return qmuxRecordStreamWire(kind, records);
      return qmuxMessageWire(options.maxMessageSize ?? records, kind);
    }
    case "webtransport":
      if (carrier === "stream") throw new RangeError("the webtransport framing only runs over WebSocket messages");
      return legacyMessageWire(options.maxMessageSize);
    default: {
      const never: never = kind;
      throw new RangeError(`unknown framing ${String(never)}`);
    }
  }
}
