/**
 * Authorization decisions the host may take asynchronously (a service's hook asking a user
 * database). A PUBLISH or SUBSCRIBE whose decision is pending holds back what the client sent
 * after it, in order, the way a flow control hold does (held-lane.ts: deliveries to the client
 * pass). The PUBLISHes queued behind a pending decision are asked for at once, so a slow hook
 * works on many of them in parallel, and they are still routed in arrival order, each once its
 * own decision and every one ahead of it are in. A decision that comes in after the connection
 * lost its session (taken over, disconnected) plans nothing: the fence is read after the wait.
 * A decision given as a plain boolean costs no microtask.
 * @module
 */
import type { Effect, PublishEffect } from "../protocol/effects.js";
import type { ClientSessionHost } from "./host.js";

/** A host's authorization: at once, or once the promise settles. */
export type Decision = boolean | Promise<boolean>;

/** What a pending decision comes to: a rejection is a refusal (the host logs its own failures). */
export function settled(decision: Promise<boolean>): Promise<boolean> {
  return decision.then(
    (allowed) => allowed,
    () => false,
  );
}

/** The decisions on PUBLISHes asked for before their turn, while one ahead of them is pending. */
export class EarlyDecisions {
  // Made on first use, dropped when empty: most connections never have a decision waiting.
  #early: Map<PublishEffect, Decision> | undefined;

  /** How many wait for their PUBLISH's turn. */
  get size(): number {
    return this.#early?.size ?? 0;
  }

  /** Asks for the decision on a PUBLISH queued behind a pending one (once per PUBLISH). */
  ask(effect: Effect, host: ClientSessionHost): void {
    if (effect.kind !== "publish" || this.#early?.has(effect) === true) return;
    const decision = host.mayPublish(effect.topic);
    // Settled now, so that a rejection never goes unhandled while it waits for its turn.
    (this.#early ??= new Map()).set(effect, typeof decision === "boolean" ? decision : settled(decision));
  }

  /** The decision on `effect` at its turn: the one asked for early, or the host's now. */
  take(effect: PublishEffect, host: ClientSessionHost): Decision {
    const waiting = this.#early;
    const early = waiting?.get(effect);
    if (waiting !== undefined && early !== undefined) {
      waiting.delete(effect);
      if (waiting.size === 0) this.#early = undefined;
      return early;
    }
    return host.mayPublish(effect.topic);
  }

  /** Forgets the early decisions (the connection was told to leave: they plan nothing). */
  clear(): void {
    this.#early = undefined;
  }
}
