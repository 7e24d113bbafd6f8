/**
 * Client-id ownership across broker nodes: a fencing token per client id, held in Redis.
 *
 * A node that takes a client id claims it: one atomic script allocates the next token from a
 * cluster-wide counter, records this node as the owner and tells the previous owner (a message on
 * its node channel) so it can close that connection with DISCONNECT 0x8E. Every write a node makes
 * for the session afterwards goes through {@link fencedBatch} carrying the token it claimed under,
 * and is refused once another node has claimed the id since: a delivery planned on the old node
 * and written after the takeover never reaches the new session (seed 000 across nodes).
 * @module
 */
import type { Redis } from "ioredis";
import { RedisScript } from "./redis-script.js";

/** The keys of one cluster's data under its prefix. */
export class ClusterKeys {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** Hash {token, node} of the client id's current owner. */
  owner(clientId: string): string {
    return `${this.prefix}owner:${clientId}`;
  }

  /** The counter fencing tokens are allocated from (never reused: INCR only). */
  get tokens(): string {
    return `${this.prefix}tokens`;
  }

  /** The pub/sub channel a node hears takeovers of its clients on. */
  nodeChannel(nodeId: string): string {
    return `${this.prefix}node:${nodeId}`;
  }
}

// KEYS: owner hash, token counter. ARGV: node id, the channel prefix of node channels.
// Returns {token, previous owner node or ""}.
const CLAIM = new RedisScript(`
local token = redis.call('INCR', KEYS[2])
local previous = redis.call('HGET', KEYS[1], 'node') or ''
redis.call('HSET', KEYS[1], 'token', token, 'node', ARGV[1])
if previous ~= '' and previous ~= ARGV[1] then
  redis.call('PUBLISH', ARGV[2] .. previous, 'takeover ' .. token .. ' ' .. ARGV[3])
end
return {token, previous}
`);

// ARGV: groups of [owner key or "", token or "", command count, then per command: argc, args...].
// A group whose owner key is set runs only while that key's token still equals its token. Returns
// the 0-based indexes of the groups refused. One script: all groups apply atomically, in order.
const FENCED_BATCH = new RedisScript(`
local i = 1
local group = 0
local refused = {}
while i <= #ARGV do
  local owner, token, count = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 3
  local ok = owner == '' or redis.call('HGET', owner, 'token') == token
  if not ok then refused[#refused + 1] = group end
  for _ = 1, count do
    local argc = tonumber(ARGV[i])
    if ok then redis.call(unpack(ARGV, i + 1, i + argc)) end
    i = i + argc + 1
  end
  group = group + 1
end
return refused
`);

/** A claim's result. */
export interface Claim {
  /** The fencing token every write for the session must carry. */
  readonly token: string;
  /** The node that owned the client id before, if any (it was told on its node channel). */
  readonly previousNode: string | undefined;
}

/** A takeover notice as a node hears it on its channel. */
export interface TakeoverNotice {
  readonly clientId: string;
  readonly token: string;
}

/** Parses a message of a node channel; undefined for anything else. */
export function parseTakeover(message: string): TakeoverNotice | undefined {
  const match = /^takeover (\d+) (.*)$/s.exec(message);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { token: match[1], clientId: match[2] };
}

/** Claims and looks up client-id ownership for one node. */
export class Ownership {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #nodeId: string;

  constructor(redis: Redis, keys: ClusterKeys, nodeId: string) {
    this.#redis = redis;
    this.#keys = keys;
    this.#nodeId = nodeId;
  }

  /** Makes this node the owner of `clientId` under a new token. */
  async claim(clientId: string): Promise<Claim> {
    const reply = await CLAIM.run(this.#redis, [this.#keys.owner(clientId), this.#keys.tokens], [this.#nodeId, this.#keys.nodeChannel(""), clientId]);
    if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected claim reply ${JSON.stringify(reply)}`);
    const [token, previous] = reply as unknown[];
    if (typeof token !== "number" || typeof previous !== "string") throw new Error(`unexpected claim reply ${JSON.stringify(reply)}`);
    return { token: String(token), previousNode: previous === "" ? undefined : previous };
  }

  /** The current owner of `clientId`, if any node claimed it. */
  async owner(clientId: string): Promise<{ readonly token: string; readonly node: string } | undefined> {
    const [token, node] = await this.#redis.hmget(this.#keys.owner(clientId), "token", "node");
    return token === null || node === null || token === undefined || node === undefined ? undefined : { token, node };
  }
}

/** Redis commands to run for one session under its token, or unfenced (`fence` undefined). */
export interface WriteGroup {
  readonly fence: { readonly ownerKey: string; readonly token: string } | undefined;
  readonly commands: readonly (readonly (string | Buffer)[])[];
}

/**
 * Runs every group in one atomic script, each fenced group only while its token is current.
 * Resolves with the indexes of the groups that were refused (their owner changed).
 */
export async function fencedBatch(redis: Redis, groups: readonly WriteGroup[]): Promise<number[]> {
  const args: (string | Buffer)[] = [];
  for (const g of groups) {
    args.push(g.fence?.ownerKey ?? "", g.fence?.token ?? "", String(g.commands.length));
    for (const command of g.commands) args.push(String(command.length), ...command);
  }
  if (args.length === 0) return [];
  const reply = await FENCED_BATCH.run(redis, [], args);
  if (!Array.isArray(reply)) throw new Error(`unexpected batch reply ${JSON.stringify(reply)}`);
  return reply.map(Number);
}
