/**
 * Broker memory per idle connection: RSS of the broker process with no client, with `count`
 * connected idle clients, after they all left, and with `count` clients connected again (RSS
 * rarely shrinks after a peak, so a leak shows as a second round costing as much as the first).
 * @module
 */
import { closeAll, openMany } from "./client.js";

/** What the idle-connection run measured. */
export interface MemoryResult {
  readonly requested: number;
  readonly connected: number;
  /** Why fewer than `requested` connected, if so. */
  readonly error: string | undefined;
  readonly rssIdleBytes: number;
  readonly rssLoadedBytes: number;
  readonly rssAfterCloseBytes: number;
  /** RSS with the same number of clients connected a second time: growth here means a leak. */
  readonly rssSecondRoundBytes: number;
  /** Handshakes (CONNECT to CONNACK) per second while connecting. */
  readonly connectsPerSec: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects `count` idle clients to the broker on `port` (in batches) and samples its RSS. */
export async function measureIdleConnections(port: number, count: number, rss: () => number | undefined, settleMs: number): Promise<MemoryResult> {
  await sleep(settleMs);
  const rssIdle = rss() ?? 0;
  const t0 = performance.now();
  const { clients, error } = await openMany(port, count, "idle-", 500, 10_000);
  const seconds = (performance.now() - t0) / 1000;
  try {
    await sleep(settleMs);
    const rssLoaded = rss() ?? 0;
    // Make sure the broker did not drop idle clients while we waited.
    const alive = clients.filter((c) => !c.socket.destroyed).length;
    await closeAll(clients, 3000);
    await sleep(settleMs);
    const rssAfterClose = rss() ?? 0;
    const again = await openMany(port, alive, "again-", 500, 10_000);
    await sleep(settleMs);
    const rssSecond = rss() ?? 0;
    await closeAll(again.clients, 3000);
    return {
      requested: count,
      connected: alive,
      error: error ?? (alive < clients.length ? `${clients.length - alive} idle client(s) dropped by the broker` : undefined),
      rssIdleBytes: rssIdle,
      rssLoadedBytes: rssLoaded,
      rssAfterCloseBytes: rssAfterClose,
      rssSecondRoundBytes: rssSecond,
      connectsPerSec: clients.length / seconds,
    };
  } finally {
    for (const c of clients) c.socket.destroy();
  }
}
