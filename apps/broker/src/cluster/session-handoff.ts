/**
 * The broker's side of a cluster's session handoff: a node gives up a session another node
 * claimed (its copy forgotten, its connection here closed with DISCONNECT 0x8E). Taking a session
 * when its client connects here is routing/handoff.ts.
 * @module
 */
import type { DeliverySink, Router } from "@handoff/mqtt-router";

/** A connection as the router holds it, which can be told to leave. */
export interface Displaceable extends DeliverySink {
  disconnect(reasonCode: number, reasonString?: string): void;
  /** Drops what waits unsent (the store refuses its writes now), then DISCONNECT 0x8E. */
  takenOverElsewhere(reasonString?: string): void;
}

/**
 * Another node holds `clientId` now: this router forgets its copy first, so the connection that
 * held it here (closed with 0x8E) can neither fire its will nor write the session it lost, then
 * that connection is told, and sends nothing it had not sent yet: a delivery or acknowledgement
 * waiting for a commit that the claim fenced out would promise what Redis does not hold (the new
 * owner would send the delivery again as a new message). True when a connection here was closed.
 */
export function giveUpSession(router: Router<Displaceable>, clientId: string): boolean {
  const owner = router.owner(clientId);
  router.forget(clientId);
  owner?.takenOverElsewhere("session taken over by another node");
  return owner !== undefined;
}
