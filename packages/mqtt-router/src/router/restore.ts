/**
 * Restart recovery: the router's state rebuilt from what a durable store loaded back, before any
 * connection. Sessions come back disconnected, their queues in sequence order with in-flight
 * deliveries keeping their packet ids for a DUP=1 resend first; generations continue above every
 * stored one; what fell due while the process was down happens at once.
 * @module
 */
import { SESSION_NEVER_EXPIRES } from "../codec/packet.js";
import { deliverySize } from "./message.js";
import type { RouterState } from "./router-state.js";
import { Session } from "./mqtt-session.js";
import { tick } from "./session-lifetime.js";
import type { RouterSnapshot, SessionSnapshot } from "./store.js";

/** Rebuilds state from `snapshot` (see {@link Router.restore}). */
export function restore(state: RouterState, snapshot: RouterSnapshot): void {
  const now = state.clock.now();
  for (const message of snapshot.retained) state.retained.set(message);
  for (const stored of snapshot.sessions) restoreSession(state, stored, now);
  // What fell due while the process was down (expired sessions, delayed wills) happens now,
  // before any client can connect and find a session that should be gone.
  tick(state);
}

/**
 * Rebuilds one stored session in `state` (restart recovery, or a cluster node adopting a session
 * another node held). `saveDisconnect`: a session stored as connected is recorded as disconnected
 * from now (off when the caller's connection claims it at once).
 */
export function restoreSession(state: RouterState, stored: SessionSnapshot, now: number, saveDisconnect = true): Session {
  const { record } = stored;
  state.generations.observe(record.generation);
  const highest = stored.deliveries.at(-1)?.seq ?? -1;
  const session = new Session(record.clientId, record.expiryInterval, state.settings.queueLimits, record.generation, state.generations.allocate(), highest + 1);
  // Everything stored was admitted under the bounds once: a lowered limit must not lose it.
  session.queue.requeueFront(
    stored.deliveries.map((d) => ({ seq: d.seq, value: d.delivery, bytes: deliverySize(d.delivery) })),
    { allowOverLimit: true },
  );
  session.recomputeEarliestExpiry();
  session.queuedQos0 = stored.deliveries.filter((d) => d.delivery.qos === 0).length;
  for (const d of stored.deliveries) {
    if (d.assigned === undefined) continue;
    session.assigned.set(d.seq, { packetId: d.assigned.packetId, phase: d.assigned.phase });
    session.seqByPacketId.set(d.assigned.packetId, d.seq);
    session.packetIds.claim(d.assigned.packetId);
    if (d.assigned.phase === "pubrel") session.resendPubrels = true;
  }
  for (const id of stored.inboundQos2) session.inboundQos2.add(id);
  for (const subscription of stored.subscriptions) {
    session.subscriptions.set(subscription.filter, subscription);
    state.index.add(session, subscription);
  }
  // A session connected when the process died counts as disconnected from now.
  const disconnectedAt = record.disconnectedAt ?? now;
  session.disconnectedAt = disconnectedAt;
  state.sessions.set(record.clientId, session);
  if (stored.will !== undefined) {
    session.will = { message: stored.will.message, delayMs: stored.will.delayMs, generation: record.generation };
    session.willDueAt = disconnectedAt + Math.min(stored.will.delayMs, session.expiryInterval * 1000);
    state.timers.schedule(session.willDueAt, { kind: "will", session, token: record.generation });
  }
  if (session.expiryInterval !== SESSION_NEVER_EXPIRES) {
    state.timers.schedule(disconnectedAt + session.expiryInterval * 1000, { kind: "expiry", session, token: record.generation });
  }
  if (record.disconnectedAt === undefined && saveDisconnect) state.store.sessionSaved({ ...record, disconnectedAt });
  return session;
}
