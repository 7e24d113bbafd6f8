// Issue #23: a broker process SIGKILLed three times, at moments drawn from a seeded schedule, under
// QoS 1 and QoS 2 load from MQTT.js clients that reconnect and resume their sessions each time.
// Every message a publisher got PUBACK/PUBCOMP for reaches every subscriber owed it (the three
// online ones and the two that drain at the end): exactly once at QoS 2, at least once with DUP=1
// on repeats at QoS 1, in order per publisher. CRASH_LOOP_SEED=<n> replays a schedule; `pnpm soak`
// runs the same scenario for longer.
import { afterEach, describe, expect, it } from "vitest";
import { children } from "./broker-process.test-helpers.js";
import { runCrashLoop } from "./crash-loop.test-helpers.js";
import { pickSeed } from "./seeded-random.test-helpers.js";

// Vitest's timeout: a safety net, not a budget. A run is bounded by its kills, each waiting at most
// test-kit's WAIT_LIMIT_MS for traffic, and by its drain (the same limit, twice); a loaded 2-core
// machine may need every bit of it.
const SAFETY_NET_MS = 15 * 60_000;

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
});

describe("a broker killed again and again under load", () => {
  for (const qos of [2, 1] as const) {
    it(`delivers every acknowledged QoS ${String(qos)} message to every subscriber owed it, across three SIGKILLs`, { timeout: SAFETY_NET_MS }, async () => {
      const seed = pickSeed(process.env["CRASH_LOOP_SEED"]);
      console.log(`crash loop QoS ${String(qos)}: seed ${String(seed)} (CRASH_LOOP_SEED=${String(seed)} replays it)`);
      const report = await runCrashLoop({ qos, seed, kills: 3, gapMs: [3000, 4000], tailMs: 1500, log: (line) => { console.log(`  ${line}`); } });
      const { violations, ...figures } = report;
      console.log(`  ${JSON.stringify(figures)}`);
      expect(report.kills).toBe(3);
      expect(report.acknowledged).toBeGreaterThan(0);
      expect(violations.slice(0, 20)).toEqual([]);
    });
  }
});
