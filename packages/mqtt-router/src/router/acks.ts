/**
 * What the owner's client acknowledges: outbound QoS 1/2 flows completing (PUBACK, PUBREC,
 * PUBCOMP) and the inbound QoS 2 packet ids awaiting PUBREL, which are session state that
 * survives reconnects [MQTT-4.3.3-*].
 * @module
 */
import { complete, received } from "./delivery.js";
import { deliveryContext, ownedSession, STALE, type RouterState, type Stale } from "./router-state.js";

/** The client finished the delivery `packetId` (PUBACK, PUBCOMP, or an error reason code). */
export function acknowledge(state: RouterState, clientId: string, generation: number, packetId: number): { readonly ok: true; readonly known: boolean } | Stale {
  const session = ownedSession(state, clientId, generation);
  if (session === undefined) return STALE;
  return { ok: true, known: complete(session, packetId, deliveryContext(state)) };
}

/** The client sent PUBREC (success) for the QoS 2 delivery `packetId`. */
export function pubrec(state: RouterState, clientId: string, generation: number, packetId: number): { readonly ok: true; readonly known: boolean } | Stale {
  const session = ownedSession(state, clientId, generation);
  if (session === undefined) return STALE;
  return { ok: true, known: received(session, packetId, deliveryContext(state)) };
}

/** Records an inbound QoS 2 packet id as received (`true`) or released by PUBREL (`false`). */
export function inboundQos2(state: RouterState, clientId: string, generation: number, packetId: number, isReceived: boolean): { readonly ok: true } | Stale {
  const session = ownedSession(state, clientId, generation);
  if (session === undefined) return STALE;
  if (isReceived) session.inboundQos2.add(packetId);
  else session.inboundQos2.delete(packetId);
  if (session.durable) state.store.inboundQos2Changed(clientId, packetId, isReceived);
  return { ok: true };
}
