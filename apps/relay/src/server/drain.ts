import type { Logger } from "pino";
import type { RelayMetrics } from "../metrics/metrics.js";
import { type LiteSession, RelayCode } from "@handoff/moq-relay";

/** How a drain went. */
export interface DrainResult {
  /** Sessions that were told (GOAWAY sent, lite-04+). */
  readonly told: number;
  /** Sessions that left (or were closed after migrating) before the deadline. */
  readonly left: number;
  /** Sessions closed at the deadline. */
  readonly forced: number;
}

/** How often a drain checks whether its sessions left (ms). */
const POLL_MS = 25;

/**
 * Drains `sessions`: sends each GOAWAY with `uri` (where the version has it), keeps serving until
 * they leave or `timeoutMs` passes, then closes the rest. A zero window closes them at once
 * without a GOAWAY they could not act on.
 */
export async function drainSessions(
  sessions: readonly LiteSession[],
  uri: string,
  timeoutMs: number,
  metrics: RelayMetrics,
  log: Logger,
): Promise<DrainResult> {
  if (timeoutMs <= 0) {
    for (const session of sessions) session.close(RelayCode.GoingAway, "draining");
    log.info({ sessions: sessions.length }, "drain with a zero window: sessions closed at once");
    return { told: 0, left: 0, forced: sessions.length };
  }
  let told = 0;
  for (const session of sessions) {
    if (!session.goaway(uri)) continue;
    told += 1;
    metrics.goaway("sent");
  }
  log.info({ sessions: sessions.length, told, uri, timeoutMs }, "draining: GOAWAY sent");
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (sessions.every((s) => s.closed) || performance.now() - started >= timeoutMs) {
        clearInterval(poll);
        resolve();
      }
    }, Math.min(POLL_MS, timeoutMs));
  });
  const open = sessions.filter((s) => !s.closed);
  for (const session of open) session.close(RelayCode.GoingAway, "drain deadline");
  const result = { told, left: sessions.length - open.length, forced: open.length };
  log.info(result, "drain over");
  return result;
}
