/**
 * A moved session's replay: the messages of the routes stream its old node did not route into it
 * and its new node routed before it was here, turned into deliveries appended to its stored queue
 * as the router would have queued them for its subscriptions (effective QoS, no-local,
 * retain-as-published, Subscription Identifiers). A shared subscription gets a group's copy only
 * where the caller names the group (a dead node's copies, see handoff.ts): otherwise its group's
 * copy went to a member where it was routed. QoS 0 gets none either (at most once, as for an
 * offline session). The read ACL is checked when the queue is sent, as for every restored delivery.
 * @module
 */
import { shareKey, type Delivery, type Message, type QoS, type SessionSnapshot } from "@handoff/mqtt-router";
import { matches } from "../../auth/topic-filter.js";
import type { StoredDelivery } from "../../storage/snapshot.js";

/** The session with the replayed deliveries appended, and those deliveries alone. */
export interface Replayed {
  readonly snapshot: SessionSnapshot;
  readonly added: readonly StoredDelivery[];
}

const minQos = (a: QoS, b: QoS): QoS => (a < b ? a : b);

/** The copy of `message` for `session`'s plain subscriptions, if any matches. */
function deliveryFor(session: SessionSnapshot, message: Message): Delivery | undefined {
  let granted: QoS | undefined;
  let retain = false;
  const ids: number[] = [];
  for (const s of session.subscriptions) {
    if (s.share !== undefined || !matches(s.filter, message.topic)) continue;
    if (s.noLocal && message.origin === session.record.clientId) continue;
    granted = granted === undefined || s.qos > granted ? s.qos : granted;
    retain ||= s.retainAsPublished && message.retain;
    if (s.subscriptionId !== undefined) ids.push(s.subscriptionId);
  }
  return granted === undefined ? undefined : { message, qos: minQos(message.qos, granted), retain, subscriptionIds: ids };
}

/** One message of a replay, and the shared groups (by `shareKey`) whose copy this session takes. */
export interface ReplayItem {
  readonly message: Message;
  readonly shareKeys?: ReadonlySet<string>;
}

/** The shared groups `session` is a member of, by `shareKey`. */
export function sessionShareKeys(session: SessionSnapshot): Set<string> {
  const keys = new Set<string>();
  for (const { share } of session.subscriptions) if (share !== undefined) keys.add(shareKey(share.group, share.filter));
  return keys;
}

// The copy of `message` for `session`'s shared subscription of group `key`, if it has one.
function sharedDeliveryFor(session: SessionSnapshot, message: Message, key: string): Delivery | undefined {
  for (const s of session.subscriptions) {
    if (s.share === undefined || shareKey(s.share.group, s.share.filter) !== key) continue;
    return { message, qos: minQos(message.qos, s.qos), retain: s.retainAsPublished && message.retain, subscriptionIds: s.subscriptionId === undefined ? [] : [s.subscriptionId] };
  }
  return undefined;
}

/**
 * Appends to `session`'s queue the copies of `items` (in order) it is owed: the plain copy of each
 * message, then the copy of each shared group named in its `shareKeys`; `now` drops expired ones.
 */
export function replayInto(session: SessionSnapshot, items: readonly ReplayItem[], now: number): Replayed {
  let seq = (session.deliveries.at(-1)?.seq ?? -1) + 1;
  const added: StoredDelivery[] = [];
  for (const { message, shareKeys } of items) {
    if (message.qos === 0 || (message.expiresAt !== undefined && message.expiresAt <= now)) continue;
    const copies = [deliveryFor(session, message), ...[...(shareKeys ?? [])].map((key) => sharedDeliveryFor(session, message, key))];
    for (const delivery of copies) {
      if (delivery === undefined || delivery.qos === 0) continue;
      added.push({ seq, delivery });
      seq += 1;
    }
  }
  return { snapshot: added.length === 0 ? session : { ...session, deliveries: [...session.deliveries, ...added] }, added };
}
