/**
 * Opens the {@link RedisStore} a broker config asks for (`storage: redis`).
 * @module
 */
import { hostname } from "node:os";
import type { BrokerConfig } from "../config/index.js";
import { StoreOpenError } from "./errors.js";
import { RedisStore } from "./redis-store.js";

/**
 * The store of `config.redis` for node `config.cluster.nodeId` (the host name when unset);
 * `onFenced` hears of sessions another node claimed. Throws {@link StoreOpenError}.
 */
export async function openConfiguredRedisStore(config: Pick<BrokerConfig, "redis" | "cluster" | "limits">, onFenced: (clientId: string) => void): Promise<RedisStore> {
  const { url, prefix, waitReplicas, waitTimeoutMs } = config.redis;
  if (url === undefined) throw new StoreOpenError("redis", "unreadable", "no redis.url configured");
  return RedisStore.open({
    url,
    prefix,
    nodeId: config.cluster.nodeId ?? hostname(),
    maxPendingBytes: config.limits.maxPendingStoreBytes,
    ...(waitReplicas === 0 ? {} : { waitReplicas: { count: waitReplicas, timeoutMs: waitTimeoutMs } }),
    hooks: { onFenced },
  });
}
