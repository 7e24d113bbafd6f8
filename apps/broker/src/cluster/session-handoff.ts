/**
 * The broker's side of a cluster's session handoff: a node gives up a session another node
 * claimed (its copy forgotten, its connection here closed with DISCONNECT 0x8E), and takes a
 * session from Redis when its client connects here (claimed, then adopted by the router).
 * @module
 */
import { ReasonCode, type DeliverySink, type Router, type SessionSnapshot } from "@handoff/mqtt-router";

/** What {@link loadSessionFrom} needs of the store (RedisStore.takeSession). */
export interface SessionSource {
  takeSession(clientId: string, forget: () => void): Promise<{ readonly current: true } | { readonly current: false; readonly stored: SessionSnapshot | undefined }>;
}

/**
 * Another node holds `clientId` now: this router forgets its copy first, so the connection that
 * held it here (closed with 0x8E) can neither fire its will nor write the session it lost, then
 * that connection is told. True when a connection here was closed.
 */
/** A connection as the router holds it, which can be told to leave. */
export interface Displaceable extends DeliverySink {
  disconnect(reasonCode: number, reasonString?: string): void;
}

export function giveUpSession(router: Router<Displaceable>, clientId: string): boolean {
  const owner = router.owner(clientId);
  router.forget(clientId);
  owner?.disconnect(ReasonCode.SessionTakenOver, "session taken over by another node");
  return owner !== undefined;
}

/** The broker's `loadSession`: takes the session from `source` unless this node holds the newest copy. */
export function loadSessionFrom(source: SessionSource): (router: Router<Displaceable>, clientId: string) => Promise<void> {
  return async (router, clientId) => {
    const taken = await source.takeSession(clientId, () => {
      giveUpSession(router, clientId);
    });
    if (!taken.current) router.adopt(clientId, taken.stored);
  };
}
