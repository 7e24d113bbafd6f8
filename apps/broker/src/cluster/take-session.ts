/**
 * A connecting client's session taken by one script: "claim unless my token is current". The
 * check of the owner, the claim (next token, this node recorded, the previous owner told on its
 * node channel) and the read of what Redis holds for the session run atomically, so no other
 * node's claim or write can fall between them.
 * @module
 */
import type { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";
import type { Claim } from "./ownership.js";
import type { RouteBase } from "./routing/handoff-rules.js";
import { RedisScript } from "./redis-script.js";

// KEYS: tokens counter, owner key, sessions hash, wills hash, the session's subscriptions,
// deliveries, assigned, inbound QoS 2 and route base keys, the cursors hash, the routes stream,
// the route bases' cursors hash (what holds the stream's trim, see routing/handoff-rules.ts).
// ARGV: node, held token or "", node channel prefix, client id, the token the owner must still
// hold or "" (a dead node's session, taken by a survivor). Returns {1} when the held token is
// current, {2} when the owner's token is not the expected one; else {0, token, previous node or
// "", previous token or "", then when a session is stored: the route base (node, cursor, tip; ""
// when no node held it), record, will or "", subscriptions, deliveries, assigned (flat
// field/value lists), inbound QoS 2 ids}. A session another node held gets its route base here
// (routeBaseOnClaim in routing/handoff-rules.ts is the same rule), kept until the new owner
// commits its replay (routing/handoff.ts); its cursor holds the stream's trim meanwhile.
const TAKE_SESSION = new RedisScript(`
local current = redis.call('HGET', KEYS[2], 'token')
if ARGV[2] ~= '' and current == ARGV[2] then return {1} end
if ARGV[5] ~= '' and current ~= ARGV[5] then return {2} end
local token = redis.call('INCR', KEYS[1])
local previous = redis.call('HGET', KEYS[2], 'node') or ''
redis.call('HSET', KEYS[2], 'token', token, 'node', ARGV[1])
if previous ~= '' and previous ~= ARGV[1] then
  redis.call('PUBLISH', ARGV[3] .. previous, 'takeover ' .. token .. ' ' .. ARGV[4])
end
local reply = {0, token, previous, current or ''}
local record = redis.call('HGET', KEYS[3], ARGV[4])
if not record then return reply end
local base = redis.call('HMGET', KEYS[9], 'node', 'cursor', 'tip')
if not base[1] and previous ~= '' then
  local last = redis.call('XREVRANGE', KEYS[11], '+', '-', 'COUNT', 1)
  local tip = '0-0'
  if last[1] then tip = last[1][1] end
  base = {previous, redis.call('HGET', KEYS[10], previous) or tip, tip}
  redis.call('HSET', KEYS[9], 'node', base[1], 'cursor', base[2], 'tip', base[3])
  redis.call('HSET', KEYS[12], ARGV[4], base[2])
end
reply[5] = base[1] or ''
reply[6] = base[2] or ''
reply[7] = base[3] or ''
reply[8] = record
reply[9] = redis.call('HGET', KEYS[4], ARGV[4]) or ''
reply[10] = redis.call('HGETALL', KEYS[5])
reply[11] = redis.call('HGETALL', KEYS[6])
reply[12] = redis.call('HGETALL', KEYS[7])
reply[13] = redis.call('SMEMBERS', KEYS[8])
return reply
`);

/** What Redis held for a session, as read in the claim's script (values undecoded). */
export interface RawSession {
  readonly record: string;
  readonly will: Buffer | undefined;
  readonly subscriptions: ReadonlyMap<string, string>;
  readonly deliveries: ReadonlyMap<string, Buffer>;
  readonly assigned: ReadonlyMap<string, string>;
  readonly inboundQos2: readonly string[];
}


/** The outcome of {@link takeSessionScript}. */
export type Taken =
  | { readonly current: true }
  | { readonly current: false; readonly claim: Claim; readonly stored: RawSession | undefined; readonly routeBase: RouteBase | undefined };

const isBufferList = (value: unknown): value is Buffer[] => Array.isArray(value) && value.every((v) => Buffer.isBuffer(v));

function pairs(list: Buffer[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let i = 0; i + 1 < list.length; i += 2) {
    const field = list[i];
    const value = list[i + 1];
    if (field !== undefined && value !== undefined) out.set(field.toString(), value);
  }
  return out;
}

const asStrings = (m: Map<string, Buffer>): Map<string, string> => new Map([...m].map(([k, v]) => [k, v.toString()]));

function parse(reply: unknown): Taken {
  const fail = (): never => {
    throw new Error("unexpected reply of the take-session script");
  };
  if (!Array.isArray(reply)) return fail();
  const [flag, token, previous, previousToken, baseNode, baseCursor, baseTip, record, will, subscriptions, deliveries, assigned, qos2] = reply as unknown[];
  if (flag === 1) return { current: true };
  if (typeof token !== "number" || !Buffer.isBuffer(previous) || !Buffer.isBuffer(previousToken)) return fail();
  const claim: Claim = {
    token: String(token),
    previousNode: previous.byteLength === 0 ? undefined : previous.toString(),
    previousToken: previousToken.byteLength === 0 ? undefined : previousToken.toString(),
  };
  if (record === undefined) return { current: false, claim, stored: undefined, routeBase: undefined };
  if (!Buffer.isBuffer(baseNode) || !Buffer.isBuffer(baseCursor) || !Buffer.isBuffer(baseTip)) return fail();
  const routeBase = baseNode.byteLength === 0 ? undefined : { node: baseNode.toString(), cursor: baseCursor.toString(), tip: baseTip.toString() };
  if (!Buffer.isBuffer(record) || !Buffer.isBuffer(will) || !isBufferList(subscriptions) || !isBufferList(deliveries) || !isBufferList(assigned) || !isBufferList(qos2)) return fail();
  return {
    current: false,
    claim,
    routeBase,
    stored: {
      record: record.toString(),
      will: will.byteLength === 0 ? undefined : will,
      subscriptions: asStrings(pairs(subscriptions)),
      deliveries: pairs(deliveries),
      assigned: asStrings(pairs(assigned)),
      inboundQos2: qos2.map((b) => b.toString()),
    },
  };
}

const run = (redis: Redis, keys: ClusterKeys, nodeId: string, clientId: string, held: string | undefined, expected: string | undefined): Promise<unknown> =>
  TAKE_SESSION.runBuffer(
    redis,
    [keys.tokens, keys.owner(clientId), keys.sessions, keys.wills, ...keys.sessionKeys(clientId), keys.cursors, keys.routes, keys.routeBases],
    [nodeId, held ?? "", keys.nodeChannel(""), clientId, expected ?? ""],
  );

/**
 * Claims `clientId` for `nodeId` unless `held` (the token this node holds for it, if any) is still
 * the owner's, and reads the session in the same script. One round trip.
 */
export async function takeSessionScript(redis: Redis, keys: ClusterKeys, nodeId: string, clientId: string, held: string | undefined): Promise<Taken> {
  return parse(await run(redis, keys, nodeId, clientId, held, undefined));
}

/**
 * Claims `clientId` for `nodeId` only while its owner still holds it under `token` (a dead node's
 * session, see wills-adoption.ts), and reads the session in the same script; undefined when
 * another node claimed it since (a client that reconnected first keeps it). One round trip.
 */
export async function takeOrphanScript(redis: Redis, keys: ClusterKeys, nodeId: string, clientId: string, token: string): Promise<Exclude<Taken, { readonly current: true }> | undefined> {
  const reply = await run(redis, keys, nodeId, clientId, undefined, token);
  if (Array.isArray(reply) && reply[0] === 2) return undefined;
  const taken = parse(reply);
  if (taken.current) throw new Error("unexpected reply of the take-session script");
  return taken;
}
