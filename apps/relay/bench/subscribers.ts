/**
 * Subscribers of the bench, one kind per process: the minimal client at lite-04/05/06, `@moq/lite`
 * 0.2.2 (lite-04 over qmux-00), `@moq/net` 0.3 (lite-05 and lite-06-wip over qmux-02), or plain `ws`
 * clients of the broadcast server. Each counts frames and their latency into one histogram.
 * @module
 */
import * as Moq from "@moq/lite";
import WebSocket from "ws";
import { connect } from "../src/e2e/harness.test-helpers.js";
import { connectNet } from "../src/e2e/net-harness.test-helpers.js";
import { rawSubscriber } from "../src/e2e/raw-subscriber.test-helpers.js";
import { record, roundOf, type Histogram } from "./stats.js";

/** A subscriber implementation, by the name the bench prints. */
export type SubscriberKind = "ws" | "minimal lite-04" | "minimal lite-05" | "minimal lite-06" | "@moq/lite lite-04" | "@moq/net lite-05" | "@moq/net lite-06-wip";

/** Every kind the bench runs against the relay, in table order. */
export const RELAY_KINDS: readonly SubscriberKind[] = ["minimal lite-04", "minimal lite-05", "minimal lite-06", "@moq/lite lite-04", "@moq/net lite-05", "@moq/net lite-06-wip"];

/** Where the publisher publishes: connection path, broadcast (relative to it) and track. */
export const TARGET = { path: "bench", broadcast: "bench", track: "data" } as const;

/** Frames of one round and their latencies. */
export interface RoundCount {
  frames: number;
  readonly latency: Histogram;
}

/** What a subscriber process counted, by round (0: the warm-up, 1: the measured run). */
export interface Counts {
  readonly rounds: readonly [RoundCount, RoundCount];
  /** Group streams the relay reset (minimal clients only: the libraries do not say). */
  resets: number;
}

/** Nothing counted yet. */
export const noCounts = (): Counts => ({ rounds: [{ frames: 0, latency: new Map() }, { frames: 0, latency: new Map() }], resets: 0 });

// Reads every group of a library track in arrival order, every frame of each group concurrently.
async function drainGroups<G>(next: () => Promise<G | undefined>, frames: (g: G) => Promise<Uint8Array | undefined>, onFrame: (p: Uint8Array) => void): Promise<void> {
  for (;;) {
    const group = await next();
    if (group === undefined) return;
    void (async () => {
      for (let p = await frames(group); p !== undefined; p = await frames(group)) onFrame(p);
    })().catch(() => undefined);
  }
}

/** Connects and subscribes one subscriber of `kind` to the server on `port`; returns how to close it. */
export async function subscribe(kind: SubscriberKind, port: number, onFrame: (p: Uint8Array) => void, onReset: () => void): Promise<() => void> {
  switch (kind) {
    case "ws": {
      const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/sub`);
      await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
      ws.on("message", (data: Buffer) => {
        onFrame(data);
      });
      return () => {
        ws.terminate();
      };
    }
    case "minimal lite-04":
    case "minimal lite-05":
    case "minimal lite-06": {
      const at = kind === "minimal lite-04" ? "lite-04" : kind === "minimal lite-05" ? "lite-05" : "lite-06";
      const subscriber = await rawSubscriber(port, { ...TARGET, at, onFrame, onReset });
      return () => {
        subscriber.close();
      };
    }
    case "@moq/lite lite-04": {
      const conn = await connect(port, TARGET.path, "lite-04");
      const track = conn.consume(Moq.Path.from(TARGET.broadcast)).subscribe(TARGET.track, 0);
      void drainGroups(() => track.recvGroup(), (g) => g.readFrame(), onFrame).catch(() => undefined);
      return () => {
        conn.close();
      };
    }
    case "@moq/net lite-05":
    case "@moq/net lite-06-wip": {
      const cleanup: (() => unknown)[] = [];
      const conn = await connectNet(cleanup, port, TARGET.path, kind === "@moq/net lite-05" ? "qmux-02.moq-lite-05" : "qmux-02.moq-lite-06-wip");
      const sub = conn.consume(TARGET.broadcast).subscribe(TARGET.track);
      void drainGroups(() => sub.recvGroup(), async (g) => (await g.readFrame())?.payload, onFrame).catch(() => undefined);
      return () => {
        conn.close();
      };
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown subscriber kind ${String(never)}`);
    }
  }
}

/** Connects `count` subscribers of `kind`, `batch` at a time, all counting into `counts`. */
export async function subscribeMany(kind: SubscriberKind, port: number, count: number, counts: Counts): Promise<(() => void)[]> {
  // The library clients' handshakes are bounded (4 s): fewer at once keeps them inside it on a busy core.
  const batch = kind === "ws" || kind.startsWith("minimal") ? 25 : 5;
  const onFrame = (p: Uint8Array): void => {
    const round = counts.rounds[roundOf(p) === 0 ? 0 : 1];
    round.frames++;
    record(round.latency, p);
  };
  const onReset = (): void => {
    counts.resets++;
  };
  const closers: (() => void)[] = [];
  for (let i = 0; i < count; i += batch) {
    closers.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => subscribe(kind, port, onFrame, onReset)))));
  }
  return closers;
}
