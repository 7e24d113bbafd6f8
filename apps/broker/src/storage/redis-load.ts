/**
 * Reads a Redis store's whole state back as the snapshot the router restores from.
 * @module
 */
import type { Redis } from "ioredis";
import type { ClusterKeys } from "../cluster/keys.js";
import { decodeAssigned, decodeDelivery, decodeMessage, decodeSession, decodeSubscription, decodeWill } from "./redis-codec.js";
import type { RouterSnapshot, SessionSnapshot, StoredDelivery } from "./snapshot.js";

/** Reads every session (with its subscriptions, deliveries, inbound QoS 2 ids, will) and retained message. */
export async function loadRedisSnapshot(redis: Redis, keys: ClusterKeys): Promise<RouterSnapshot> {
  const [sessions, wills, retained] = await Promise.all([redis.hgetall(keys.sessions), redis.hgetallBuffer(keys.wills), redis.hgetallBuffer(keys.retained)]);
  const snapshots = await Promise.all(
    Object.entries(sessions)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(async ([clientId, value]): Promise<SessionSnapshot> => {
        const [subscriptions, deliveries, assigned, qos2] = await Promise.all([
          redis.hgetall(keys.subscriptions(clientId)),
          redis.hgetallBuffer(keys.deliveries(clientId)),
          redis.hgetall(keys.assigned(clientId)),
          redis.smembers(keys.inboundQos2(clientId)),
        ]);
        const stored = Object.entries(deliveries)
          .map(([seq, v]): StoredDelivery => {
            const state = assigned[seq] === undefined ? undefined : decodeAssigned(assigned[seq]);
            const delivery = decodeDelivery(v);
            return state === undefined ? { seq: Number(seq), delivery } : { seq: Number(seq), delivery, assigned: state };
          })
          .sort((a, b) => a.seq - b.seq);
        const will = wills[clientId];
        return {
          record: decodeSession(clientId, value),
          subscriptions: Object.values(subscriptions).map(decodeSubscription),
          deliveries: stored,
          inboundQos2: qos2.map(Number).sort((a, b) => a - b),
          ...(will === undefined ? {} : { will: decodeWill(will) }),
        };
      }),
  );
  return { sessions: snapshots, retained: Object.values(retained).map(decodeMessage) };
}
