/**
 * A node starting again settles the sessions it had claimed and not yet settled when it stopped
 * (RedisStore.unsettled): each gets its replay from its route base, as a session moving here does
 * (routing/handoff.ts), and only then is restored into the router, before the broker listens. Restored
 * without it, the messages routed while it was moving would never reach it.
 * @module
 */
import type { Router } from "@handoff/mqtt-router";
import type { UnsettledSession } from "../storage/redis-load.js";
import type { Displaceable } from "./session-handoff.js";
import { restoreAsStopped } from "./wills-adoption.js";
import type { SettleMoved } from "./routing/handoff.js";

/** Settles every unsettled session into `router`; resolves once all are installed. */
export async function settleAtStart(unsettled: readonly UnsettledSession[], settle: SettleMoved, router: Pick<Router<Displaceable>, "forget" | "restore">): Promise<void> {
  for (const { stored, routeBase } of unsettled) {
    const clientId = stored.record.clientId;
    await settle(clientId, stored, routeBase, restoreAsStopped(router, clientId));
  }
}
