/**
 * Hears, on this node's channel, that another node claimed one of its client ids (the claim
 * script publishes it), so the connection here is closed with DISCONNECT 0x8E at once rather than
 * at its next fenced write. A notice is acted on only when its token is newer than the one this
 * node holds for the id: a notice that arrives after this node claimed the id back is stale.
 * @module
 */
import { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";
import { parseTakeover, type TakeoverNotice } from "./ownership.js";

/** True when `notice` displaces the holder of `held` (none held: nothing to displace here). */
export function displaces(notice: TakeoverNotice, held: string | undefined): boolean {
  return held !== undefined && Number(notice.token) > Number(held);
}

/** Settings of {@link listenForTakeovers}. */
export interface TakeoverListenerOptions {
  readonly url: string;
  readonly keys: ClusterKeys;
  readonly nodeId: string;
  /** The token this node holds for a client id, if any. */
  readonly held: (clientId: string) => string | undefined;
  /** A client id of this node was claimed by another node under a newer token. */
  readonly onTakenOver: (notice: TakeoverNotice) => void;
}

/** A running listener. */
export interface TakeoverListener {
  close(): Promise<void>;
}

/** Subscribes to this node's channel (its own connection: a subscribed one can do nothing else). */
export async function listenForTakeovers(options: TakeoverListenerOptions): Promise<TakeoverListener> {
  const redis = new Redis(options.url, { lazyConnect: true });
  redis.on("error", () => undefined); // it reconnects and subscribes again by itself
  redis.on("message", (_channel: string, message: string) => {
    const notice = parseTakeover(message);
    if (notice !== undefined && displaces(notice, options.held(notice.clientId))) options.onTakenOver(notice);
  });
  await redis.connect();
  await redis.subscribe(options.keys.nodeChannel(options.nodeId));
  return {
    close: async () => {
      await redis.quit().catch(() => undefined);
    },
  };
}
