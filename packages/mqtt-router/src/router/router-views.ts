/**
 * The read side of the router for operators: pages of sessions, a session's subscriptions,
 * queue totals and pages of retained messages, all as read-only copies (see session-view.ts).
 * @module
 */
import { viewRetained, viewSession, viewSubscription, type RetainedPage, type SessionView, type SubscriptionView } from "./session-view.js";
import type { RouterState } from "./router-state.js";

/** Paging through a sorted list: the key after which a page starts, and its most items. */
export interface PageOptions {
  /** Start after this key (the previous page's `next`); absent: from the first. */
  readonly after?: string | undefined;
  /** Most items in the page. */
  readonly limit: number;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Up to `limit` sessions as views, in client id order after `after`; `next` when more follow. */
export function sessionViews(state: RouterState, options: PageOptions): { readonly sessions: readonly SessionView[]; readonly next?: string } {
  const { after, limit } = options;
  const ids = [...state.sessions.keys()].filter((id) => after === undefined || id > after).sort(byCodeUnits);
  const page = ids.slice(0, Math.max(0, limit));
  const sessions = page.flatMap((id) => {
    const session = state.sessions.get(id);
    return session === undefined ? [] : [viewSession(session)];
  });
  const last = page.at(-1);
  return ids.length > page.length && last !== undefined ? { sessions, next: last } : { sessions };
}

/** `clientId`'s subscriptions as views, in filter order; undefined without a session. */
export function subscriptionViews(state: RouterState, clientId: string): readonly SubscriptionView[] | undefined {
  const session = state.sessions.get(clientId);
  if (session === undefined) return undefined;
  return [...session.subscriptions.values()].sort((a, b) => byCodeUnits(a.filter, b.filter)).map(viewSubscription);
}

/** Queued and in-flight deliveries summed over every session. */
export function queueTotals(state: RouterState): { readonly queued: number; readonly inflight: number } {
  let queued = 0;
  let inflight = 0;
  for (const session of state.sessions.values()) {
    queued += session.queue.queuedCount;
    inflight += session.queue.inflightCount;
  }
  return { queued, inflight };
}

/** Up to `limit` unexpired retained messages matching `filter`, in topic order after `after`. */
export function retainedPage(state: RouterState, filter: string, options: PageOptions): RetainedPage {
  const limit = Math.max(0, options.limit);
  const found = state.retained.page(filter, options.after, limit, state.clock.now());
  const messages = found.slice(0, limit).map(viewRetained);
  const last = messages.at(-1);
  return found.length > limit && last !== undefined ? { messages, next: last.topic } : { messages };
}
