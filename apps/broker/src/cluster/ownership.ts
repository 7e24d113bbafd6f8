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
import type { ClusterKeys } from "./keys.js";
import { RedisScript } from "./redis-script.js";

// KEYS: the token counter. ARGV[1]: the prefix of owner keys, ARGV[2]: the prefix of node
// channels, then groups of [owner key or "", fence, command count, then per command: argc,
// args...]. The fence is "token:<t>" (apply while the owner's token is t), "claim:<node>" (take
// the next token, make node the owner, tell the previous owner's channel, then apply) or
// "claimed" (apply: an earlier group of this batch claimed the id). Returns {refused group
// indexes, {group index, token, previous node or "", previous token or ""} per claim, the id of
// every XADD applied, in order}. One script: the groups apply atomically, in order.
const FENCED_BATCH = new RedisScript(`
local i = 3
local group = 0
local refused, claims, claimed, appended = {}, {}, {}, {}
while i <= #ARGV do
  local owner, fence, count = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 3
  local ok = owner == ''
  if not ok then
    if string.sub(fence, 1, 6) == 'claim:' then
      local node = string.sub(fence, 7)
      local token = redis.call('INCR', KEYS[1])
      local previous = redis.call('HGET', owner, 'node') or ''
      local previousToken = redis.call('HGET', owner, 'token') or ''
      redis.call('HSET', owner, 'token', token, 'node', node)
      if previous ~= '' and previous ~= node then
        redis.call('PUBLISH', ARGV[2] .. previous, 'takeover ' .. token .. ' ' .. string.sub(owner, #ARGV[1] + 1))
      end
      claimed[owner] = true
      claims[#claims + 1] = {group, token, previous, previousToken}
      ok = true
    elseif fence == 'claimed' then
      ok = claimed[owner] == true
    else
      ok = 'token:' .. (redis.call('HGET', owner, 'token') or '') == fence
    end
  end
  if not ok then refused[#refused + 1] = group end
  for _ = 1, count do
    local argc = tonumber(ARGV[i])
    if ok then
      local result = redis.call(unpack(ARGV, i + 1, i + argc))
      if ARGV[i + 1] == 'XADD' then appended[#appended + 1] = result end
    end
    i = i + argc + 1
  end
  group = group + 1
end
return {refused, claims, appended}
`);

/** A claim's result. */
export interface Claim {
  /** The fencing token every write for the session must carry. */
  readonly token: string;
  /** The node that owned the client id before, if any (it was told on its node channel). */
  readonly previousNode: string | undefined;
  /** The token the client id was held under before, if any. */
  readonly previousToken: string | undefined;
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
    const { claims } = await fencedBatch(this.#redis, this.#keys, [{ fence: { kind: "claim", ownerKey: this.#keys.owner(clientId), node: this.#nodeId }, commands: [] }]);
    const claim = claims.get(0);
    if (claim === undefined) throw new Error(`no claim of ${clientId} in the batch reply`);
    return claim;
  }

  /** The current owner of `clientId`, if any node claimed it. */
  async owner(clientId: string): Promise<{ readonly token: string; readonly node: string } | undefined> {
    const [token, node] = await this.#redis.hmget(this.#keys.owner(clientId), "token", "node");
    return token === null || node === null || token === undefined || node === undefined ? undefined : { token, node };
  }
}

/** How a write group is fenced (see {@link fencedBatch}). */
export type Fence =
  /** Apply while `token` is the owner's token. */
  | { readonly kind: "token"; readonly ownerKey: string; readonly token: string }
  /** Claim the client id for `node` first (a new token; the previous node is told), then apply. */
  | { readonly kind: "claim"; readonly ownerKey: string; readonly node: string }
  /** Apply: an earlier group of the same batch claimed this owner key. */
  | { readonly kind: "claimed"; readonly ownerKey: string };

/** Redis commands to run for one session under its fence, or unfenced (`fence` undefined). */
export interface WriteGroup {
  readonly fence: Fence | undefined;
  readonly commands: readonly (readonly (string | Buffer)[])[];
}

/** What one {@link fencedBatch} did. */
export interface BatchResult {
  /** Indexes of the groups refused (their owner changed since their token). */
  readonly refused: readonly number[];
  /** What each claiming group got, by group index. */
  readonly claims: ReadonlyMap<number, Claim>;
  /** The stream id of every XADD applied, in the batch's order. */
  readonly appended: readonly string[];
}

function fenceArg(fence: Fence): string {
  switch (fence.kind) {
    case "token":
      return `token:${fence.token}`;
    case "claim":
      return `claim:${fence.node}`;
    case "claimed":
      return "claimed";
    default: {
      const never: never = fence;
      throw new Error(`unknown fence ${JSON.stringify(never)}`);
    }
  }
}

const isNumberList = (value: unknown): value is number[] => Array.isArray(value) && value.every((v) => typeof v === "number");
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

/**
 * Runs every group in one atomic script, each fenced group only while its fence holds. Every
 * command must be idempotent (HSET, HDEL, DEL, SADD, SREM): a batch whose reply was lost is sent
 * again.
 */
export async function fencedBatch(redis: Redis, keys: ClusterKeys, groups: readonly WriteGroup[]): Promise<BatchResult> {
  const args: (string | Buffer)[] = [keys.owner(""), keys.nodeChannel("")];
  for (const g of groups) {
    args.push(g.fence?.ownerKey ?? "", g.fence === undefined ? "" : fenceArg(g.fence), String(g.commands.length));
    for (const command of g.commands) args.push(String(command.length), ...command);
  }
  if (groups.length === 0) return { refused: [], claims: new Map(), appended: [] };
  const reply = await FENCED_BATCH.run(redis, [keys.tokens], args);
  const [refused, claims, appended = []] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (!isNumberList(refused) || !Array.isArray(claims) || !isStringList(appended)) throw new Error(`unexpected batch reply ${JSON.stringify(reply)}`);
  const claimed = new Map<number, Claim>();
  for (const entry of claims as unknown[]) {
    const [group, token, previous, previousToken] = Array.isArray(entry) ? (entry as unknown[]) : [];
    if (typeof group !== "number" || typeof token !== "number" || typeof previous !== "string" || typeof previousToken !== "string") throw new Error(`unexpected claim in batch reply ${JSON.stringify(reply)}`);
    claimed.set(group, { token: String(token), previousNode: previous === "" ? undefined : previous, previousToken: previousToken === "" ? undefined : previousToken });
  }
  return { refused, claims: claimed, appended };
}
