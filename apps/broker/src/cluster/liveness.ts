/**
 * Node liveness in a cluster: each node renews a heartbeat key in Redis (its id, when it started,
 * its last beat) that expires unless renewed within the node timeout, and joins the set of nodes.
 * A node of that set whose heartbeat is gone is dead: a survivor adopts its sessions (their wills
 * and expiry then run there, see wills-adoption.ts) and only then takes it out of the set, so a
 * survivor that dies halfway leaves the rest to the next one.
 * @module
 */
import type { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";
import { RedisScript } from "./redis-script.js";

/** What a heartbeat key holds. */
export interface Heartbeat {
  readonly nodeId: string;
  /** Wall-clock ms the node started at. */
  readonly startedAt: number;
  /** Wall-clock ms of the beat that wrote this value. */
  readonly lastBeat: number;
}

/** The cluster as one survey saw it. */
export interface ClusterView {
  /** Nodes whose heartbeat is present (this one included once it has beaten). */
  readonly nodesAlive: number;
  /** Sessions stored cluster-wide (connected or not). */
  readonly sessions: number;
  /** Nodes of the set whose heartbeat expired, this one never included. */
  readonly dead: readonly string[];
}

// KEYS: the node set, the dead node's heartbeat, the routes cursors hash. ARGV: the node id. Out of
// the set only while its heartbeat is still gone: a node that came back meanwhile stays. Its routes
// cursor goes with it: it would hold the stream's trim for ever (and past cluster.maxStreamBacklog
// every node's publishers). What its adopted sessions still need of the stream is held by their
// route bases (routing/handoff-rules.ts trimFloor); a node that starts again under that id later
// joins as a new one (from the stream's tip, with none of the sessions, which survivors own now).
const FORGET_DEAD = new RedisScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('SREM', KEYS[1], ARGV[1])
`);

/** Settings of {@link Liveness}. */
export interface LivenessOptions {
  readonly redis: Redis;
  readonly keys: ClusterKeys;
  readonly nodeId: string;
  /** A heartbeat not renewed for this long has expired: its node counts as dead. */
  readonly timeoutMs: number;
  /** Wall-clock ms this node started at. */
  readonly startedAt: number;
}

/** One node's heartbeat and its view of the others' (no timers: see liveness-loop.ts). */
export class Liveness {
  readonly #options: LivenessOptions;

  constructor(options: LivenessOptions) {
    this.#options = options;
  }

  /** Renews this node's heartbeat (written at `now`) and makes sure it is in the node set. */
  async beat(now: number): Promise<void> {
    const { redis, keys, nodeId, timeoutMs, startedAt } = this.#options;
    const value: Heartbeat = { nodeId, startedAt, lastBeat: now };
    // Back (or new): no survivor delivers this node's `$share` copies any more.
    await redis.multi().set(keys.heartbeat(nodeId), JSON.stringify(value), "PX", timeoutMs).sadd(keys.nodes, nodeId).del(keys.heir(nodeId)).exec();
  }

  /** Which nodes of the set are alive and which dead, and how many sessions are stored. */
  async survey(): Promise<ClusterView> {
    const { redis, keys, nodeId } = this.#options;
    const members = (await redis.smembers(keys.nodes)).sort();
    const [present, sessions] = await Promise.all([Promise.all(members.map((m) => redis.exists(keys.heartbeat(m)))), redis.hlen(keys.sessions)]);
    const dead = members.filter((m, i) => present[i] === 0 && m !== nodeId);
    return { nodesAlive: present.filter((p) => p === 1).length, sessions, dead };
  }

  /** The heartbeats present now, by node id (for operators and tests). */
  async heartbeats(): Promise<Heartbeat[]> {
    const { redis, keys } = this.#options;
    const members = (await redis.smembers(keys.nodes)).sort();
    const values = await Promise.all(members.map((m) => redis.get(keys.heartbeat(m))));
    return values.flatMap((v) => (v === null ? [] : [JSON.parse(v) as Heartbeat]));
  }

  /** Takes `deadNode` and its routes cursor out of the cluster once its sessions are adopted; false when it came back. */
  async forget(deadNode: string): Promise<boolean> {
    const { redis, keys } = this.#options;
    return (await FORGET_DEAD.run(redis, [keys.nodes, keys.heartbeat(deadNode), keys.cursors], [deadNode])) === 1;
  }
}
