/**
 * Reads a Redis store's state back: the sessions a node restores at start (with the retained
 * messages), and the values of one session a node adopts when its client connects there.
 * @module
 */
import type { Redis } from "ioredis";
import type { ClusterKeys } from "../cluster/keys.js";
import type { RouteBase } from "../cluster/routing/handoff-rules.js";
import type { RawSession } from "../cluster/take-session.js";
import { decodeAssigned, decodeDelivery, decodeMessage, decodeSession, decodeSubscription, decodeWill } from "./redis-codec.js";
import type { RouterSnapshot, SessionSnapshot, StoredDelivery } from "./snapshot.js";

// One session from its record's value (the hash field of `keys.sessions`) and its own keys.
async function readSession(redis: Redis, keys: ClusterKeys, clientId: string, value: string, will: Buffer | null | undefined): Promise<SessionSnapshot> {
  const [subscriptions, deliveries, assigned, qos2] = await Promise.all([
    redis.hgetall(keys.subscriptions(clientId)),
    redis.hgetallBuffer(keys.deliveries(clientId)),
    redis.hgetall(keys.assigned(clientId)),
    redis.smembers(keys.inboundQos2(clientId)),
  ]);
  return decodeRawSession(clientId, {
    record: value,
    will: will ?? undefined,
    subscriptions: new Map(Object.entries(subscriptions)),
    deliveries: new Map(Object.entries(deliveries)),
    assigned: new Map(Object.entries(assigned)),
    inboundQos2: qos2,
  });
}

/** The session of `clientId` from its stored values as Redis returned them. */
export function decodeRawSession(clientId: string, raw: RawSession): SessionSnapshot {
  const stored = [...raw.deliveries]
    .map(([seq, v]): StoredDelivery => {
      const value = raw.assigned.get(seq);
      const state = value === undefined ? undefined : decodeAssigned(value);
      const delivery = decodeDelivery(v);
      return state === undefined ? { seq: Number(seq), delivery } : { seq: Number(seq), delivery, assigned: state };
    })
    .sort((a, b) => a.seq - b.seq);
  return {
    record: decodeSession(clientId, raw.record),
    subscriptions: [...raw.subscriptions.values()].map(decodeSubscription),
    deliveries: stored,
    inboundQos2: raw.inboundQos2.map(Number).sort((a, b) => a - b),
    ...(raw.will === undefined ? {} : { will: decodeWill(raw.will) }),
  };
}

/**
 * Reads every session `include` accepts (by client id; default all), with its subscriptions,
 * deliveries, inbound QoS 2 ids and will, and every retained message.
 */
export async function loadRedisSnapshot(redis: Redis, keys: ClusterKeys, include: (clientId: string) => boolean = () => true): Promise<RouterSnapshot> {
  const [sessions, wills, retained] = await Promise.all([redis.hgetall(keys.sessions), redis.hgetallBuffer(keys.wills), redis.hgetallBuffer(keys.retained)]);
  const snapshots = await Promise.all(
    Object.entries(sessions)
      .filter(([clientId]) => include(clientId))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([clientId, value]) => readSession(redis, keys, clientId, value, wills[clientId])),
  );
  return { sessions: snapshots, retained: Object.values(retained).map(decodeMessage) };
}

/** A session restored at start whose route base still waits for its replay (RedisStore.unsettled). */
export interface UnsettledSession {
  readonly stored: SessionSnapshot;
  readonly routeBase: RouteBase;
}

/** The sessions of `loaded` whose route base is still in Redis, apart from the rest. */
export async function apartUnsettled(redis: Redis, keys: ClusterKeys, loaded: RouterSnapshot): Promise<{ readonly snapshot: RouterSnapshot; readonly unsettled: UnsettledSession[] }> {
  // The route bases' hash names every unsettled session: one read, then a base only for those.
  const pending = new Set(await redis.hkeys(keys.routeBases));
  const candidates = loaded.sessions.filter((s) => pending.has(s.record.clientId));
  if (candidates.length === 0) return { snapshot: loaded, unsettled: [] };
  const bases = new Map(await Promise.all(candidates.map(async (s) => [s, await redis.hgetall(keys.routeBase(s.record.clientId))] as const)));
  const unsettled: UnsettledSession[] = [];
  const sessions = loaded.sessions.filter((stored) => {
    const { node, cursor, tip } = bases.get(stored) ?? {};
    if (node === undefined || cursor === undefined || tip === undefined) return true;
    unsettled.push({ stored, routeBase: { node, cursor, tip } });
    return false;
  });
  return { snapshot: { ...loaded, sessions }, unsettled };
}
