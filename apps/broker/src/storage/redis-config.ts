/**
 * Opens what a broker config with `storage: redis` needs: the {@link RedisStore}, and the listener
 * for takeover notices of this node's client ids.
 * @module
 */
import { hostname } from "node:os";
import { ClusterKeys } from "../cluster/keys.js";
import { listenForTakeovers } from "../cluster/takeover-listener.js";
import type { BrokerConfig } from "../config/index.js";
import { StoreOpenError } from "./errors.js";
import { RedisStore } from "./redis-store.js";

/** The store and the takeover listener of one node. */
export interface RedisStorage {
  readonly store: RedisStore;
  /** Stops listening for takeover notices (the store closes on its own). */
  stopListening(): Promise<void>;
}

/**
 * Opens `config.redis` for node `config.cluster.nodeId` (the host name when unset). `onDisplaced`
 * hears of each client id another node claimed — by the takeover notice, or by a refused write —
 * and should close its connection here with DISCONNECT 0x8E. Throws {@link StoreOpenError}.
 */
export async function openRedisStorage(config: Pick<BrokerConfig, "redis" | "cluster" | "limits">, onDisplaced: (clientId: string) => void): Promise<RedisStorage> {
  const { url, prefix, waitReplicas, waitTimeoutMs } = config.redis;
  if (url === undefined) throw new StoreOpenError("redis", "unreadable", "no redis.url configured");
  const nodeId = config.cluster.nodeId ?? hostname();
  const store = await RedisStore.open({
    url,
    prefix,
    nodeId,
    maxPendingBytes: config.limits.maxPendingStoreBytes,
    ...(waitReplicas === 0 ? {} : { waitReplicas: { count: waitReplicas, timeoutMs: waitTimeoutMs } }),
    hooks: { onFenced: onDisplaced },
  });
  const listener = await listenForTakeovers({
    url,
    keys: new ClusterKeys(prefix),
    nodeId,
    held: (clientId) => store.tokenOf(clientId),
    onTakenOver: (notice) => {
      onDisplaced(notice.clientId);
    },
  }).catch(async (cause: unknown) => {
    await store.close().catch(() => undefined);
    throw new StoreOpenError(store.file, "unreadable", `takeover channel: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  });
  return { store, stopListening: () => listener.close() };
}
