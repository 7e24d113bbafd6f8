/**
 * Putting a delivery on a session's queue and pumping the queue out to the owning connection.
 *
 * Every delivery goes through the queue, even when the subscriber is online and idle: the "fast
 * lane" is just a pump that runs at once. That makes the order rule structural: resends (requeued
 * in-flight entries, lowest sequence numbers) go first, then the backlog, then new work, and a
 * session whose new owner has not bound yet simply does not pump [MQTT-4.6.0-5], [MQTT-4.4.0-1].
 * @module
 */
import type { QueueEntry } from "@handoff/seqlog";
import { deliverySize, isExpired, remainingExpiry, type Delivery } from "./message.js";
import type { Session } from "./mqtt-session.js";
import type { DeliverySink, OutboundPublish } from "./sink.js";
import type { DropReason, RouterStats } from "./stats.js";
import type { RouterStore } from "./store.js";

/** What to do when a QoS 1/2 delivery meets a full queue (after evicting queued QoS 0 copies). */
export type OverflowPolicy = "drop-oldest" | "drop-new";

/** What delivery needs from the router. */
export interface DeliveryContext {
  readonly now: number;
  readonly stats: RouterStats;
  readonly store: RouterStore;
  readonly overflow: OverflowPolicy;
}

/** The outcome of putting one copy on a session's queue. */
export type EnqueueOutcome = "queued" | "stale" | "dropped";

// Frees a queue entry that is gone for good, with its packet id if it had one.
function release(session: Session, entry: QueueEntry<Delivery>, ctx: DeliveryContext): void {
  const assigned = session.assigned.get(entry.seq);
  if (assigned !== undefined) {
    session.assigned.delete(entry.seq);
    session.seqByPacketId.delete(assigned.packetId);
    session.packetIds.release(assigned.packetId);
  }
  if (session.durable) ctx.store.deliveryRemoved(session.clientId, entry.seq);
}

/**
 * Queues `delivery` for `session` if the session is still at `epoch` (the fence the plan was
 * built under), applying the overflow policy. Never drops a QoS 1/2 copy without counting it.
 */
export function enqueue(session: Session, epoch: number, delivery: Delivery, ctx: DeliveryContext): EnqueueOutcome {
  if (session.ended) {
    ctx.stats.drop("stale-plan");
    return "stale";
  }
  const size = deliverySize(delivery);
  for (;;) {
    const result = session.queue.pushIfEpoch(epoch, delivery, size);
    if (result.ok) {
      ctx.stats.queued += 1;
      if (session.durable) ctx.store.deliveryQueued(session.clientId, result.seq, delivery);
      session.noteExpiry(delivery.message.expiresAt);
      if (delivery.qos === 0) session.queuedQos0 += 1;
      return "queued";
    }
    if (result.reason === "stale-epoch") {
      ctx.stats.drop("stale-plan");
      return "stale";
    }
    if (delivery.qos === 0) {
      ctx.stats.drop("queue-full-qos0");
      return "dropped";
    }
    // Make room: the oldest queued QoS 0 copy first, then (drop-oldest) the oldest copy that has
    // no packet id yet — a copy being resent keeps its place.
    const victim =
      evictQos0(session) ??
      (ctx.overflow === "drop-oldest" ? session.queue.evictFirst((e) => !session.assigned.has(e.seq)) : undefined);
    if (victim === undefined) {
      ctx.stats.drop("queue-full");
      return "dropped";
    }
    release(session, victim, ctx);
    ctx.stats.drop("evicted");
  }
}

// The oldest queued QoS 0 copy, removed; the search runs only while one may be queued.
function evictQos0(session: Session): QueueEntry<Delivery> | undefined {
  if (session.queuedQos0 === 0) return undefined;
  const victim = session.queue.evictFirst((e) => e.value.qos === 0);
  session.queuedQos0 = victim === undefined ? 0 : session.queuedQos0 - 1;
  return victim;
}

function outbound(entry: QueueEntry<Delivery>, packetId: number | undefined, dup: boolean, now: number): OutboundPublish {
  const d = entry.value;
  const m = d.message;
  const expiry = remainingExpiry(m, now);
  // Per copy, per subscriber: reuse the message's own properties unless this copy adds some.
  const properties =
    expiry === undefined && d.subscriptionIds.length === 0
      ? m.properties
      : {
          ...m.properties,
          ...(expiry === undefined ? {} : { messageExpiryInterval: expiry }),
          ...(d.subscriptionIds.length === 0 ? {} : { subscriptionIdentifiers: d.subscriptionIds }),
        };
  // Two literals, not a spread: this runs once per copy.
  return packetId === undefined
    ? { topic: m.topic, payload: m.payload, qos: d.qos, retain: d.retain, dup, properties }
    : { topic: m.topic, payload: m.payload, qos: d.qos, retain: d.retain, dup, packetId, properties };
}

/**
 * Sends what the session's owner may have now: queued entries in order while the client's
 * Receive Maximum leaves room for QoS 1/2 [MQTT-3.3.4-9]. Does nothing until the owner is bound.
 */
export function pump(session: Session, ctx: DeliveryContext): void {
  const owner = session.owner;
  if (!owner?.bound) return;
  const queue = session.queue;
  if (session.resendPubrels) resendPubrels(session, owner.sink, ctx);
  for (let head = queue.peek(); head !== undefined; head = queue.peek()) {
    const assigned = session.assigned.get(head.seq);
    // An expired copy is dropped unless it was already sent once: a resend completes the flow
    // the client already saw [MQTT-4.3.3-7].
    if (assigned === undefined && isExpired(head.value.message, ctx.now)) {
      discardHead(session, head, "expired", ctx);
      continue;
    }
    // Queued before this owner's read check applied (offline, restored): checked as it goes out.
    if (assigned === undefined && head.seq < session.readableFrom && session.readable?.(head.value.message.topic) === false) {
      discardHead(session, head, "not-readable", ctx);
      continue;
    }
    if (head.value.qos === 0) {
      if (session.queuedQos0 > 0) session.queuedQos0 -= 1;
      queue.take();
      queue.ack(head.seq);
      release(session, head, ctx);
      if (owner.sink.publish(outbound(head, undefined, false, ctx.now))) ctx.stats.sent += 1;
      else ctx.stats.drop("refused-by-connection");
      continue;
    }
    if (queue.inflightCount >= owner.receiveMaximum) return;
    if (assigned !== undefined) {
      queue.take();
      ctx.stats.sent += 1;
      if (assigned.phase === "pubrel") owner.sink.pubrel(assigned.packetId);
      else if (!owner.sink.publish(outbound(head, assigned.packetId, true, ctx.now))) dropRefused(session, head.seq, ctx);
      continue;
    }
    const packetId = session.packetIds.allocate();
    if (packetId === undefined) return; // all 65535 ids in flight: wait for acks
    queue.take();
    const fresh = { packetId, phase: "publish" as const };
    session.assigned.set(head.seq, fresh);
    session.seqByPacketId.set(packetId, head.seq);
    if (session.durable) ctx.store.deliveryAssigned(session.clientId, head.seq, fresh);
    if (owner.sink.publish(outbound(head, packetId, false, ctx.now))) ctx.stats.sent += 1;
    else dropRefused(session, head.seq, ctx);
  }
}

// A PUBREL resend is never limited by Receive Maximum [MQTT-3.3.4-10], so none waits behind a DUP
// PUBLISH the quota holds: they all go out first (the flows keep their slots until PUBCOMP).
function resendPubrels(session: Session, sink: DeliverySink, ctx: DeliveryContext): void {
  session.resendPubrels = false;
  const pubrels = session.queue.takeWhere((e) => session.assigned.get(e.seq)?.phase === "pubrel");
  for (const entry of pubrels) {
    const assigned = session.assigned.get(entry.seq);
    if (assigned === undefined) continue;
    ctx.stats.sent += 1;
    sink.pubrel(assigned.packetId);
  }
}

function discardHead(session: Session, head: QueueEntry<Delivery>, reason: DropReason, ctx: DeliveryContext): void {
  session.queue.take();
  session.queue.ack(head.seq);
  release(session, head, ctx);
  ctx.stats.drop(reason);
}

function dropRefused(session: Session, seq: number, ctx: DeliveryContext): void {
  const entry = session.queue.ack(seq);
  if (entry !== undefined) release(session, entry, ctx);
  ctx.stats.drop("refused-by-connection");
}

/**
 * The client acknowledged packet `packetId` for good (PUBACK, PUBCOMP, or PUBREC/PUBACK with an
 * error code [MQTT-4.4.0-2]). Returns false if no delivery had that id.
 */
export function complete(session: Session, packetId: number, ctx: DeliveryContext): boolean {
  const seq = session.seqByPacketId.get(packetId);
  if (seq === undefined) return false;
  const entry = session.queue.ack(seq);
  if (entry === undefined) return false;
  release(session, entry, ctx);
  pump(session, ctx);
  return true;
}

/** The client sent PUBREC for `packetId`: the delivery moves to the PUBREL phase. */
export function received(session: Session, packetId: number, ctx: DeliveryContext): boolean {
  const seq = session.seqByPacketId.get(packetId);
  const assigned = seq === undefined ? undefined : session.assigned.get(seq);
  if (seq === undefined || assigned === undefined) return false;
  assigned.phase = "pubrel";
  if (session.durable) ctx.store.deliveryAssigned(session.clientId, seq, assigned);
  return true;
}
