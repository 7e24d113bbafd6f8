/**
 * The sessions of a dead node, adopted by a survivor so their wills fire (once, after their Will
 * Delay) and their expiry runs: each is claimed through the fencing token with the claim the
 * connect path uses, conditional on the dead node's token, so exactly one survivor wins it and a
 * client that reconnected to any node first keeps its session (its will is not fired). The
 * adopted session is restored as disconnected from now, as a restart restores one that was
 * connected when the process died, after the messages routed since the dead node's last read
 * are appended to it (its route base, as for a session moving between live nodes); a client that
 * reconnects later takes it from this node as from any other.
 * @module
 */
import type { Router, SessionSnapshot } from "@handoff/mqtt-router";
import type { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";
import type { OrphanShares, SettleMoved } from "./routing/handoff.js";
import type { RouteBase } from "./routing/handoff-rules.js";
import type { ClaimTokens, UninstalledClaims } from "./routing/uninstalled-claims.js";

/** What adoption needs of the store (RedisStore.takeOrphan, its node id, its claims' tokens). */
export interface OrphanSource extends ClaimTokens {
  readonly nodeId: string;
  takeOrphan(clientId: string, token: string): Promise<{ readonly lost: true } | { readonly lost: false; readonly stored: SessionSnapshot | undefined; readonly routeBase: RouteBase | undefined }>;
}

// Without cluster routing (unit tests), an adopted session is installed at once.
const atOnce: SettleMoved = (_clientId, stored, _routeBase, install) => {
  install(stored);
  return Promise.resolve();
};

/** The client ids `node` owns, with the token it holds each under, among the stored sessions. */
export async function sessionsOwnedBy(redis: Redis, keys: ClusterKeys, node: string): Promise<{ readonly clientId: string; readonly token: string }[]> {
  const clientIds = (await redis.hkeys(keys.sessions)).sort();
  const owners = await Promise.all(clientIds.map((clientId) => redis.hmget(keys.owner(clientId), "token", "node")));
  return clientIds.flatMap((clientId, i) => {
    const [token, owner] = owners[i] ?? [];
    return owner === node && typeof token === "string" ? [{ clientId, token }] : [];
  });
}

/**
 * Installs a session taken from Redis as a restart restores one (disconnected from now, its will
 * and expiry running here), replacing any copy this router had: a dead node's session adopted
 * here, or one this node settles as it starts (routing/settle-at-start.ts).
 */
export function restoreAsStopped(router: Pick<Router, "forget" | "restore">, clientId: string): (snapshot: SessionSnapshot) => void {
  return (snapshot) => {
    router.forget(clientId);
    router.restore({ sessions: [snapshot], retained: [] });
  };
}

/**
 * Whether `nodeId` delivers `deadNode`'s `$share` copies: the first survivor to ask, once
 * cluster-wide (until `deadNode` beats again), so survivors splitting its sessions do not each
 * deliver them (one copy per group, cluster invariant C3). One round trip (SET NX GET).
 */
export async function electHeir(redis: Redis, keys: ClusterKeys, deadNode: string, nodeId: string): Promise<boolean> {
  const previous = await redis.call("SET", keys.heir(deadNode), nodeId, "NX", "GET");
  return previous === null || previous === nodeId;
}

/**
 * Adopts every session `deadNode` still owns into `router`; resolves with the client ids adopted.
 * Rejects when Redis fails (what was adopted stays adopted; the rest is tried at the next survey).
 */
export async function adoptSessionsOf(deadNode: string, redis: Redis, keys: ClusterKeys, store: OrphanSource, router: Pick<Router, "forget" | "restore">, settle: SettleMoved = atOnce, uninstalled?: UninstalledClaims): Promise<string[]> {
  const adopted: string[] = [];
  let orphan: OrphanShares | undefined;
  // Asked once, when the first session is taken: the heir's election is a Redis round trip.
  const shares = async (): Promise<OrphanShares> => (orphan ??= { claimed: new Set<string>(), heir: await electHeir(redis, keys, deadNode, store.nodeId) });
  for (const { clientId, token } of await sessionsOwnedBy(redis, keys, deadNode)) {
    // Claimed here, it is no longer the dead node's: the next survey would not list it again.
    if (await takeAsStopped(clientId, token, { store, router, settle, uninstalled }, shares)) adopted.push(clientId);
  }
  return adopted;
}

/**
 * Installs, as stopped sessions (their wills and expiry running here), the claims of this node
 * whose install failed (routing/uninstalled-claims.ts): each claimed again only while its token is
 * still the owner's, so a client that connected to any node meanwhile keeps its session. Resolves
 * with the client ids installed; rejects when Redis fails (the rest wait for the next round).
 */
export async function installUninstalled(uninstalled: UninstalledClaims, store: OrphanSource, router: Pick<Router, "forget" | "restore">, settle: SettleMoved = atOnce): Promise<string[]> {
  const installed: string[] = [];
  for (const [clientId, token] of uninstalled.entries()) {
    await uninstalled.exclusive(clientId, async () => {
      if (uninstalled.tokenOf(clientId) !== token) return; // a connect here installed it meanwhile
      const taken = await takeAsStopped(clientId, token, { store, router, settle, uninstalled });
      uninstalled.delete(clientId);
      if (taken) installed.push(clientId);
    });
  }
  return installed;
}

/**
 * Claims `clientId` for this node while `token` is still the owner's and restores it as stopped
 * after the replay its route base owes it; false when another node holds it now or nothing is
 * stored. An install that fails after the claim is left to `uninstalled` (the error goes on).
 */
async function takeAsStopped(
  clientId: string,
  token: string,
  { store, router, settle, uninstalled }: { readonly store: OrphanSource; readonly router: Pick<Router, "forget" | "restore">; readonly settle: SettleMoved; readonly uninstalled: UninstalledClaims | undefined },
  shares?: () => Promise<OrphanShares>,
): Promise<boolean> {
  const taken = await store.takeOrphan(clientId, token);
  if (taken.lost || taken.stored === undefined) return false;
  const orphan = await shares?.();
  try {
    await settle(clientId, taken.stored, taken.routeBase, restoreAsStopped(router, clientId), orphan);
  } catch (err) {
    uninstalled?.left(clientId, store);
    throw err;
  }
  return true;
}
