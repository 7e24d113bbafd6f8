/**
 * Which sessions subscribe to what: plain subscriptions in one topic trie (by client id), shared
 * ones in another (by group), as planning reads them.
 * @module
 */
import type { PlanIndexes } from "./plan.js";
import type { Session } from "./mqtt-session.js";
import { SharedGroup } from "./shared-group.js";
import type { SessionSubscription } from "./subscription.js";
import { TopicTrie } from "./topic-trie.js";

/** The subscription indexes of every session. */
export class SubscriptionIndex {
  /** What a plan reads. */
  readonly indexes: PlanIndexes = {
    subscriptions: new TopicTrie<{ readonly session: Session; readonly subscription: SessionSubscription }>(),
    shared: new TopicTrie<SharedGroup>(),
  };
  /** Members across all shared groups (metrics read it per scrape, so it is kept, not counted). */
  #sharedMembers = 0;
  readonly #onSharedGroup: ((group: string, filter: string, present: boolean) => void) | undefined;

  /** `onSharedGroup` is told when a shared group gets its first member here or loses its last. */
  constructor(onSharedGroup?: (group: string, filter: string, present: boolean) => void) {
    this.#onSharedGroup = onSharedGroup;
  }

  /** How many subscriptions are indexed (plain and shared). */
  get size(): number {
    return this.indexes.subscriptions.size + this.#sharedMembers;
  }

  /** Indexes (or re-indexes) one subscription of `session`. */
  add(session: Session, subscription: SessionSubscription): void {
    const { subscriptions, shared } = this.indexes;
    if (subscription.share === undefined) {
      subscriptions.set(subscription.filter, session.clientId, { session, subscription });
      return;
    }
    let group = shared.get(subscription.share.filter, subscription.share.group);
    let created = false;
    if (group === undefined) {
      group = new SharedGroup(subscription.share.group, subscription.share.filter);
      shared.set(subscription.share.filter, subscription.share.group, group);
      created = true;
    }
    if (!group.members.has(session.clientId)) this.#sharedMembers += 1;
    group.members.set(session.clientId, { session, subscription });
    if (created) this.#onSharedGroup?.(group.name, group.filter, true);
  }

  /** Removes one subscription of `session`; an emptied shared group goes too. */
  remove(session: Session, subscription: SessionSubscription): void {
    const { subscriptions, shared } = this.indexes;
    if (subscription.share === undefined) {
      subscriptions.delete(subscription.filter, session.clientId);
      return;
    }
    const group = shared.get(subscription.share.filter, subscription.share.group);
    if (group === undefined) return;
    if (group.members.delete(session.clientId)) this.#sharedMembers -= 1;
    if (group.members.size === 0) {
      shared.delete(subscription.share.filter, subscription.share.group);
      this.#onSharedGroup?.(group.name, group.filter, false);
    }
  }
}
