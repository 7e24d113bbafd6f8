import type { Probe } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { SessionContext } from "../context/index.js";

/**
 * The relay's PROBE report. It measures neither bandwidth nor RTT (the framing keeps no RTT
 * estimate), so both go out as 0: unknown.
 */
export const PROBE_REPORT: Probe = { type: "probe", bitrate: undefined, rtt: undefined };

/**
 * Answers PROBE stream `id` (lite-03+) with a report, once when it opens and once per PROBE the
 * peer sends. The stream stays open until the peer FINs it: an error there would close
 * @moq/lite's whole session, so it is never reset.
 */
export function answerProbe(ctx: SessionContext, id: StreamId): void {
  const writer = ctx.writer;
  if (writer === undefined || ctx.closed) return;
  ctx.io.send(id, writer.encode(PROBE_REPORT), false);
}
