/**
 * A SUBSCRIBE's filters taken as a sequence of SUBSCRIBEs [MQTT-3.8.4-5], a few milliseconds of
 * them per event-loop turn: each filter walks the retained store, and a few hundred overlapping
 * wildcards over a large store would otherwise stall every connection at once.
 * @module
 */
import type { Router, SubscribeGrant, SubscribeRequest } from "@handoff/mqtt-router";

/** Work on one SUBSCRIBE per event-loop turn, ms (at least one filter per turn). */
export const SUBSCRIBE_SLICE_MS = 5;

const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

/**
 * Subscribes `requests` one filter at a time, yielding the event loop whenever a turn's work
 * passed {@link SUBSCRIBE_SLICE_MS}. Returns the codes at once when they all fit in this turn (the
 * usual case), a promise of them otherwise; undefined when the connection no longer owns the
 * session (taken over meanwhile).
 */
export function subscribeInTurns(
  router: Router,
  clientId: string,
  generation: number,
  requests: readonly SubscribeRequest[],
  subscriptionId: number | undefined,
  now: () => number = () => performance.now(),
): readonly SubscribeGrant[] | undefined | Promise<readonly SubscribeGrant[] | undefined> {
  const granted: SubscribeGrant[] = [];
  const take = (from: number): number | undefined => {
    const started = now();
    let next = from;
    do {
      const request = requests[next];
      if (request === undefined) break;
      const result = router.subscribe(clientId, generation, [request], subscriptionId);
      if (!result.ok) return undefined;
      granted.push(...result.granted);
      next += 1;
    } while (next < requests.length && now() - started < SUBSCRIBE_SLICE_MS);
    return next;
  };
  const first = take(0);
  if (first === undefined) return undefined;
  if (first >= requests.length) return granted;
  return (async () => {
    for (let next: number | undefined = first; next < requests.length; ) {
      await nextTurn();
      next = take(next);
      if (next === undefined) return undefined;
    }
    return granted;
  })();
}
