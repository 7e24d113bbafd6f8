/**
 * Overload probe: one publisher floods QoS 0 as fast as its socket accepts (open loop, no credit)
 * to many subscribers for a short while; then everyone leaves and we time how long the broker
 * takes to answer a new CONNECT ("stalled" past 5 s). A broker that bounds its work per read
 * recovers in a second or two; one that takes in the whole flood stays deaf while it works
 * through the backlog.
 * @module
 */
import { preparePublish } from "@handoff/mqtt-router/codec";
import { BenchClient, closeAll, openMany } from "./client.js";

/** What the flood did to the broker. */
export interface BurstResult {
  readonly status: "ok" | "stalled" | "failed";
  readonly detail: string | undefined;
  /** PUBLISHes the publisher wrote per second of flood. */
  readonly writtenPerSec: number;
  /** PUBLISHes all subscribers received per second of flood. */
  readonly deliveredPerSec: number;
  /** Largest broker RSS sampled during the flood and the recovery. */
  readonly peakRssBytes: number;
  /** Seconds from the end of the flood to the next CONNACK; undefined if none came in time. */
  readonly recoverySec: number | undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const BATCH = 16;

/** Floods `subscribers` subscribers for `floodMs`, then waits up to `recoverMs` for a CONNACK. */
export async function runBurst(port: number, subscribers: number, floodMs: number, recoverMs: number, rss: () => number | undefined): Promise<BurstResult> {
  const all: BenchClient[] = [];
  let peak = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, rss() ?? 0);
  }, 100);
  try {
    const subs = await openMany(port, subscribers, "burst-sub-", 100, 20_000);
    all.push(...subs.clients);
    if (subs.error !== undefined) return failedBurst(`subscriber connect failed: ${subs.error}`);
    for (let i = 0; i < subs.clients.length; i += 100) {
      await Promise.all(subs.clients.slice(i, i + 100).map((c) => c.subscribe("bench/burst", 0, 20_000)));
    }
    let delivered = 0;
    for (const s of subs.clients) s.listen({
        onPublish: () => {
          delivered++;
        },
      });
    const pub = await BenchClient.open(port, "burst-pub", 20_000);
    all.push(pub);
    const r = preparePublish({ type: "publish", qos: 0, retain: false, dup: false, topic: "bench/burst", payload: new Uint8Array(64), properties: {} }, 4);
    if (!r.ok) throw r.error;
    const batch = Buffer.concat(Array.from({ length: BATCH }, () => r.template.bytes));
    let flooding = true;
    let written = 0;
    const pump = (): void => {
      if (!flooding || pub.socket.destroyed) return;
      written += BATCH;
      if (pub.socket.write(batch)) setImmediate(pump);
      else pub.socket.once("drain", pump);
    };
    pump();
    await sleep(floodMs);
    flooding = false;
    const seconds = floodMs / 1000;
    const got = delivered;
    const t0 = performance.now();
    await closeAll(all, 1000);
    let recovery: number | undefined;
    while (recovery === undefined && performance.now() - t0 < recoverMs) {
      try {
        const probe = await BenchClient.open(port, "burst-probe", Math.max(1, Math.min(1000, recoverMs - (performance.now() - t0))));
        recovery = (performance.now() - t0) / 1000;
        probe.socket.destroy();
      } catch {
        await sleep(50);
      }
    }
    const stalled = recovery === undefined || recovery > 5;
    return {
      status: stalled ? "stalled" : "ok",
      detail: recovery === undefined ? `no CONNACK within ${recoverMs / 1000} s after the flood` : undefined,
      writtenPerSec: written / seconds,
      deliveredPerSec: got / seconds,
      peakRssBytes: peak,
      recoverySec: recovery,
    };
  } catch (err) {
    return failedBurst(err instanceof Error ? err.message : String(err));
  } finally {
    clearInterval(sample);
    for (const c of all) c.socket.destroy();
  }
}

function failedBurst(detail: string): BurstResult {
  return { status: "failed", detail, writtenPerSec: 0, deliveredPerSec: 0, peakRssBytes: 0, recoverySec: undefined };
}
