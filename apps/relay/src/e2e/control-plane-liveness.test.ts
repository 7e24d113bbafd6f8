// The control plane stays responsive while the data plane is busy: 100 starved subscribers (a
// little credit, then not reading at all) on one track a publisher feeds at 50 groups/s of 5
// frames of 1,000 B. /health, /metrics and a new session's setup are probed throughout.
import { describe, expect, it } from "vitest";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import { childRelay, type ChildRelay } from "./child-relay.test-helpers.js";
import { e2eSetup, within } from "./harness.test-helpers.js";
import { rawClient, rawSetup } from "./raw-client.test-helpers.js";
import { rawPublisher } from "./raw-publisher.test-helpers.js";
import { rawSubscriber, type RawSubscriber } from "./raw-subscriber.test-helpers.js";

const cleanup = e2eSetup();

const SUBSCRIBERS = 100;
const GROUPS_PER_S = 50;
const FRAMES_PER_GROUP = 5;
const FRAME_BYTES = 1000;
/** Probes of each kind, one kind after the other, spread over the run. */
const PROBES = 12;
/** The bound on each answer. */
const BOUND_MS = 100;
/** The sampling interval of the relay's event-loop delay histogram (its metrics' precision). */
const LOOP_RESOLUTION_MS = 10;

interface Figures {
  readonly p50: number;
  readonly min: number;
  readonly max: number;
}

function figures(samples: readonly number[]): Figures {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length / 2)] ?? NaN, min: sorted[0] ?? NaN, max: sorted.at(-1) ?? NaN };
}

async function timed(probe: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await probe();
  return performance.now() - start;
}

/** A gauge of the relay process's exposition, by its full name. */
function gauge(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.slice(name.length + 1) ?? NaN);
}

async function get(url: string): Promise<string> {
  const res = await within(fetch(url), 5000, url);
  if (res.status !== 200) throw new Error(`${url}: ${String(res.status)}`);
  return res.text();
}

describe("control-plane liveness under a starved fan-out", () => {
  it(`answers /health, /metrics and a new session's setup within ${String(BOUND_MS)} ms while ${String(SUBSCRIBERS)} subscribers starve`, async () => {
    const relay: ChildRelay = await childRelay(cleanup, ["--tcp-port", "0", "--metrics-port", "0"], 90_000);
    const tcp = relay.ports.tcp;
    const metricsPort = relay.ports.metrics;
    if (tcp === undefined || metricsPort === undefined) throw new Error("ports missing");
    const pub = await rawPublisher(cleanup, tcp, "cam");
    // Starved: a 2 KiB window, 2 group streams at a time, and then the socket is not read at all.
    const subscribers: RawSubscriber[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const sub = await rawSubscriber(relay.ports.http, {
        path: "",
        broadcast: "cam",
        track: "video",
        params: { initialMaxData: 2048, initialMaxStreamDataUni: 1024, initialMaxStreamsUni: 2 },
      });
      sub.pause();
      subscribers.push(sub);
      cleanup.push(() => {
        sub.close();
      });
    }
    const id = await pub.subscribeId();
    const metricsUrl = `http://127.0.0.1:${String(metricsPort)}/metrics`;
    let sequence = 0;
    let frames = 0;
    const payload = new Uint8Array(FRAME_BYTES).fill(7);
    // A frame every 4 ms (5 make a group, 50 groups a second), by the clock: a late timer on a
    // loaded machine catches up instead of lowering the rate.
    const started = performance.now();
    let open: number | undefined;
    let refused = 0;
    const publishing = setInterval(() => {
      const due = Math.floor(((performance.now() - started) / 1000) * GROUPS_PER_S * FRAMES_PER_GROUP);
      while (frames < due) {
        if (open === undefined) {
          // Out of stream credit (the relay grants more as it retires the publisher's streams,
          // later on a loaded machine): wait for it, as a real publisher would, rather than throw
          // inside the timer, which vitest reports as an unhandled error.
          try {
            open = pub.group(id, sequence, [], false);
          } catch {
            refused++;
            break;
          }
          sequence++;
        }
        const last = ++frames % FRAMES_PER_GROUP === 0;
        pub.frame(open, payload, last);
        if (last) open = undefined;
      }
    }, 1000 / GROUPS_PER_S / FRAMES_PER_GROUP);
    cleanup.push(() => {
      clearInterval(publishing);
    });
    // Let the backlog build (every subscriber over its 256 outbound groups) before probing.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    // Scraping resets the process's event-loop delay histogram: what the last scrape reports
    // covers the probing window.
    await get(metricsUrl);
    const probes = {
      health: () => get(`http://127.0.0.1:${String(relay.ports.http)}/health`),
      metrics: () => get(metricsUrl),
      setup: async () => {
        const scratch: (() => unknown)[] = [];
        try {
          await rawSetup(await rawClient(scratch, relay.ports.http));
        } finally {
          for (const c of scratch) await c();
        }
      },
    };
    // A first round warms this process's clients up (fetch's pool, the WebSocket client).
    for (const probe of Object.values(probes)) await probe();
    const health: number[] = [];
    const scrape: number[] = [];
    const setup: number[] = [];
    for (let i = 0; i < PROBES; i++) {
      health.push(await timed(probes.health));
      scrape.push(await timed(probes.metrics));
      setup.push(await timed(probes.setup));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const text = await get(metricsUrl);
    clearInterval(publishing);
    const elapsed = (performance.now() - started) / 1000;
    // The histogram samples every 10 ms and records the whole interval: the delay is the excess.
    const lag = (name: string): number => gauge(text, name) * 1000 - LOOP_RESOLUTION_MS;
    const loop = {
      p50: lag("nodejs_eventloop_lag_p50_seconds"),
      p90: lag("nodejs_eventloop_lag_p90_seconds"),
      p99: lag("nodejs_eventloop_lag_p99_seconds"),
      max: lag("nodejs_eventloop_lag_max_seconds"),
    };
    const report = { groupsPerS: Math.round(sequence / elapsed), health: figures(health), metrics: figures(scrape), setup: figures(setup), eventLoopMs: loop, refusedOpens: refused, skipped: gauge(text, "relay_groups_skipped_total") };
    process.stdout.write(`control-plane liveness: ${JSON.stringify(report)}\n`);
    // The fan-out really ran: groups were published and the starved subscribers lost some.
    expect(report.groupsPerS).toBeGreaterThanOrEqual(GROUPS_PER_S * 0.9);
    expect(report.skipped).toBeGreaterThan(0);
    // The bound is asserted on the best of each kind's probes, and the median and max are
    // reported. Each probe is a few round trips between this process and the relay's, and on a
    // shared, loaded machine (2 cores, several test runs, load 10 and more) every wake-up of
    // either process may wait tens of ms for a core: that alone has pushed medians past 100 ms
    // while the relay's own event loop was idle. A relay whose control plane waited behind the
    // fan-out would delay every probe, the best included; and the relay's own event-loop delay,
    // measured in its process and free of this one's scheduling, shows it does not.
    expect(report.health.min).toBeLessThan(BOUND_MS);
    expect(report.metrics.min).toBeLessThan(BOUND_MS);
    expect(report.setup.min).toBeLessThan(BOUND_MS);
    // Half the samples (one every 10 ms) found the relay's loop free within the bound: a loop
    // kept busy by the fan-out is late on most samples. The tail (p90 was 3-56 ms at load ~10) is
    // reported, not asserted: it also counts the process waiting for a core on a loaded machine.
    expect(loop.p50).toBeLessThan(BOUND_MS);
    expect(relay.alive()).toBe(true);
    expect(await bystanderRoundTrip(relay.ports.http)).toBe(true);
  }, 90_000);
});
