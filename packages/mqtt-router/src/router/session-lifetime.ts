/**
 * How a session lives on without its connection: a disconnect releases it (in-flight deliveries
 * back on the queue, the will set off), it expires after its Session Expiry Interval unless a
 * client resumes it, and it can be ended by an operator. Expired messages leave offline queues.
 * @module
 */
import { SESSION_NEVER_EXPIRES } from "../codec/packet.js";
import { ownedSession, STALE, type RouterState, type Stale } from "./router-state.js";
import type { Session } from "./mqtt-session.js";
import { disarmWill, fireWill, scheduleWill } from "./wills.js";

/** Something the router did on its own during {@link Router.tick}, for logs and metrics. */
export type RouterEvent =
  | { readonly kind: "will-published"; readonly clientId: string; readonly topic: string }
  | { readonly kind: "session-expired"; readonly clientId: string; readonly discarded: number };

/** How a connection closed. */
export interface DisconnectOptions {
  /** False after a normal DISCONNECT (0x00) [MQTT-3.14.4-3]. */
  readonly publishWill: boolean;
  /** The Session Expiry Interval from the DISCONNECT, if it carried one. */
  readonly sessionExpiryInterval?: number;
}

/** The connection `generation` closed: the session is released, its will and expiry set off. */
export function disconnect(state: RouterState, clientId: string, generation: number, options: DisconnectOptions): { readonly ok: true } | Stale {
  const session = ownedSession(state, clientId, generation);
  if (session === undefined) return STALE;
  const now = state.clock.now();
  session.owner = undefined;
  session.requeueInflight();
  // A session that ends with its connection stays one: nothing of its queue was stored
  // [MQTT-3.14.2-2].
  if (options.sessionExpiryInterval !== undefined && session.durable) session.expiryInterval = Math.min(options.sessionExpiryInterval, state.settings.maxSessionExpiry);
  session.disconnectedAt = now;
  state.store.sessionSaved({ clientId, expiryInterval: session.expiryInterval, generation, disconnectedAt: now });

  // The will waits for its delay or the end of the session, whichever is first.
  if (options.publishWill) scheduleWill(state, session, generation, now);
  else disarmWill(state, session);
  if (session.expiryInterval === 0) expire(state, session);
  else if (session.expiryInterval !== SESSION_NEVER_EXPIRES) {
    state.timers.schedule(now + session.expiryInterval * 1000, { kind: "expiry", session, token: generation });
  }
  return { ok: true };
}

/** Ends the session of `clientId` on an operator's request, as expiry would; only one nobody owns. */
export function endSessionByOperator(
  state: RouterState,
  clientId: string,
): { readonly ok: true; readonly discarded: number } | { readonly ok: false; readonly reason: "unknown" | "connected" } {
  const session = state.sessions.get(clientId);
  if (session === undefined) return { ok: false, reason: "unknown" };
  if (session.owner !== undefined) return { ok: false, reason: "connected" };
  const discarded = session.queue.count;
  expire(state, session);
  return { ok: true, discarded };
}

/** Runs what is due at the clock's current time: delayed wills, session expiry, message expiry. */
export function tick(state: RouterState): RouterEvent[] {
  const now = state.clock.now();
  const events: RouterEvent[] = [];
  for (const timer of state.timers.due(now)) {
    const { session } = timer;
    // Lazy cancellation: a timer counts only if its session is still the one it was set for,
    // still disconnected since the same connection left.
    if (session.ended || session.owner !== undefined || state.sessions.get(session.clientId) !== session) continue;
    if (timer.kind === "will") {
      if (session.will?.generation === timer.token && session.willDueAt !== undefined && session.willDueAt <= now) {
        const topic = session.will.message.topic;
        fireWill(state, session);
        events.push({ kind: "will-published", clientId: session.clientId, topic });
      }
    } else if (session.disconnectedAt !== undefined && session.disconnectedAt + session.expiryInterval * 1000 <= now) {
      if (session.will !== undefined) {
        events.push({ kind: "will-published", clientId: session.clientId, topic: session.will.message.topic });
      }
      const discarded = session.queue.count;
      expire(state, session);
      state.stats.sessionsExpired += 1;
      events.push({ kind: "session-expired", clientId: session.clientId, discarded });
    }
  }
  dropExpiredMessages(state, now);
  return events;
}

// Expired messages leave disconnected sessions' queues too, so an offline backlog of expired
// messages does not hold memory [MQTT-3.3.2-5]. Only queues that may hold an expired message are
// scanned, not every queue every tick.
function dropExpiredMessages(state: RouterState, now: number): void {
  for (const session of state.sessions.values()) {
    if (session.owner !== undefined || session.earliestExpiry === undefined || session.earliestExpiry > now) continue;
    const removed = session.queue.removeWhere((e) => !session.assigned.has(e.seq) && e.value.message.expiresAt !== undefined && e.value.message.expiresAt <= now);
    if (session.durable) for (const entry of removed) state.store.deliveryRemoved(session.clientId, entry.seq);
    if (removed.length > 0) state.stats.drop("expired", removed.length);
    session.recomputeEarliestExpiry();
  }
}

/** The session ends with its connection gone: a pending will goes out first [MQTT-3.1.2-8]. */
export function expire(state: RouterState, session: Session): void {
  fireWill(state, session);
  endSession(state, session);
}

/** Discards the session: unindexed, its queue cleared (its epoch moves on), deleted from the store. */
export function endSession(state: RouterState, session: Session): void {
  for (const subscription of session.subscriptions.values()) state.index.remove(session, subscription);
  const discarded = session.discard();
  session.ended = true;
  if (discarded > 0) state.stats.drop("session-discarded", discarded);
  if (state.sessions.get(session.clientId) === session) state.sessions.delete(session.clientId);
  state.store.sessionDeleted(session.clientId);
}
