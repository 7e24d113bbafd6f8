/**
 * Sessions handed between the routers of a cluster: each node's router holds only the sessions it
 * serves, and the shared store is the authority for the rest. When another node claims a client
 * id, this node's copy of the session is forgotten without a store write (the stored state is the
 * other node's now); when a client connects here, its session is adopted from what the store holds.
 * @module
 */
import type { RouterState } from "./router-state.js";
import { restoreSession } from "./restore.js";
import { expire } from "./session-lifetime.js";
import type { SessionSnapshot } from "./store.js";
import { fireWill } from "./wills.js";

/**
 * Drops `clientId`'s session from this router only: its connection here (if any) is displaced, so
 * its later calls are stale; plans built for it are refused (its queue epoch moves on); its will
 * and expiry timers lapse. Nothing is reported to the store. False when there was no session.
 */
export function forget(state: RouterState, clientId: string): boolean {
  const session = state.sessions.get(clientId);
  if (session === undefined) return false;
  for (const subscription of session.subscriptions.values()) state.index.remove(session, subscription);
  session.owner = undefined;
  session.discard();
  session.ended = true;
  state.sessions.delete(clientId);
  return true;
}

/**
 * Replaces this router's copy of `clientId`'s session (if any) with `stored` (none: no session),
 * before a CONNECT here claims it. A session stored as connected was held by a connection on
 * another node that is being displaced, so this is a takeover: a session that ended with its
 * connection (expiry 0) ends now, and a will without delay is published [MQTT-3.1.2-8]; otherwise
 * the CONNECT that follows resumes or replaces it as any takeover would.
 */
export function adopt(state: RouterState, clientId: string, stored: SessionSnapshot | undefined): void {
  forget(state, clientId);
  if (stored === undefined) return;
  if (stored.record.clientId !== clientId) throw new Error(`adopt: snapshot of ${stored.record.clientId}, not ${clientId}`);
  const session = restoreSession(state, stored, state.clock.now(), false);
  if (stored.record.disconnectedAt !== undefined) return;
  state.stats.takeovers += 1;
  if (session.expiryInterval === 0) expire(state, session);
  else if (session.will?.delayMs === 0) fireWill(state, session);
}
