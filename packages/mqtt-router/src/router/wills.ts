/**
 * Wills: armed by a CONNECT, published when their connection goes without a normal DISCONNECT
 * (after their delay, or when the session ends, whichever is first [MQTT-3.1.2-8]), cancelled by a
 * normal DISCONNECT or a resume within the delay [MQTT-3.1.3-9].
 * @module
 */
import type { Message } from "./message.js";
import { publish } from "./publish.js";
import type { RouterState } from "./router-state.js";
import type { Session } from "./mqtt-session.js";

/** A will as a CONNECT asks for it. */
export interface WillRequest {
  /** Published when the will fires. */
  readonly message: Message;
  /** Will Delay Interval, seconds. */
  readonly delaySeconds: number;
  /** Message Expiry Interval, seconds, counted from when the will is published. */
  readonly expirySeconds?: number;
}

/** Arms the will of the connection `generation` (the message's own `expiresAt` is ignored). */
export function armWill(state: RouterState, session: Session, generation: number, will: WillRequest): void {
  const { expiresAt: _ignored, ...message } = will.message;
  session.will = {
    message,
    delayMs: will.delaySeconds * 1000,
    generation,
    ...(will.expirySeconds === undefined ? {} : { expiryMs: will.expirySeconds * 1000 }),
  };
  session.willDueAt = undefined;
  state.store.willChanged(session.clientId, { message: will.message, delayMs: session.will.delayMs });
}

/**
 * The connection `generation` went without a normal DISCONNECT at `now`: its will is published at
 * once or when its delay (cut short by the session's end) is over.
 */
export function scheduleWill(state: RouterState, session: Session, generation: number, now: number): void {
  if (session.will === undefined) return;
  const delayMs = Math.min(session.will.delayMs, session.expiryInterval * 1000);
  if (delayMs === 0) {
    fireWill(state, session);
    return;
  }
  session.willDueAt = now + delayMs;
  state.timers.schedule(session.willDueAt, { kind: "will", session, token: generation });
}

/** Publishes the session's will, if it has one, and forgets it. */
export function fireWill(state: RouterState, session: Session): void {
  const will = session.will;
  if (will === undefined) return;
  session.will = undefined;
  session.willDueAt = undefined;
  state.store.willChanged(session.clientId, undefined);
  state.stats.willsPublished += 1;
  const now = state.clock.now();
  publish(state, will.expiryMs === undefined ? will.message : { ...will.message, expiresAt: now + will.expiryMs });
}

/** Cancels the session's will, if it has one. */
export function disarmWill(state: RouterState, session: Session): void {
  if (session.will === undefined) return;
  session.will = undefined;
  session.willDueAt = undefined;
  state.store.willChanged(session.clientId, undefined);
}
