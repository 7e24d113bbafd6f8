// TLS on both listeners: a hub serving HTTPS/WSS and qmux over TLS, linked to by one relay over
// tls:// and by another over wss://, with the moq version taken from the TLS ALPN.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { LITE_06 } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { expectContiguous, publisher, routable, subscriber } from "./cluster-harness.test-helpers.js";
import { e2eSetup, testRelay, until } from "./harness.test-helpers.js";

const cleanup = e2eSetup();
const fixture = (name: string): Buffer => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));

describe("TLS", () => {
  it("carries a broadcast over qmux/TLS and WSS links to a hub that serves TLS on both ports", async () => {
    const cert = fixture("localhost-cert.pem");
    const key = fixture("localhost-key.pem");
    const hub = await testRelay(cleanup, undefined, { tls: { cert, key } });
    const timing = { minBackoffMs: 50, maxBackoffMs: 500 };
    const ingest = await testRelay(cleanup, undefined, {
      cluster: { peers: [`tls://127.0.0.1:${String(hub.ports.tcp)}`], ca: cert, timing },
    });
    const edge = await testRelay(cleanup, undefined, {
      cluster: { peers: [`wss://127.0.0.1:${String(hub.ports.http)}/`], ca: cert, timing },
    });
    await until(() => hub.sessions.size === 2 && [...hub.sessions].every((s) => s.version !== undefined), 5000, "both links up");
    // Every session on the hub agreed the newest version both speak, lite-06 (the TLS ALPN on one, the WebSocket subprotocol on the other).
    expect([...hub.sessions].map((s) => s.version)).toEqual([LITE_06, LITE_06]);
    const pub = publisher(cleanup, ingest);
    await routable(edge, "the broadcast crossed both TLS links");
    const received = await subscriber(cleanup, edge);
    const writer = await pub;
    writer.groups(0, 3, 4);
    await until(() => received.count() === 12, 5000, "frames across TLS");
    expectContiguous(received, 0, 3, 4);
  });

  it("refuses a TLS peer whose certificate it does not trust, and keeps retrying", async () => {
    const hub = await testRelay(cleanup, undefined, { tls: { cert: fixture("localhost-cert.pem"), key: fixture("localhost-key.pem") } });
    const edge = await testRelay(cleanup, undefined, {
      cluster: { peers: [`tls://127.0.0.1:${String(hub.ports.tcp)}`], timing: { minBackoffMs: 20, maxBackoffMs: 50 } },
    });
    const failed = async (): Promise<number> => {
      const text = await edge.metrics.render();
      const line = text.split("\n").find((l) => l.startsWith('relay_cluster_dials_total{result="failed"}'));
      return Number(line?.split(" ")[1] ?? 0);
    };
    await expect.poll(failed, { timeout: WAIT_LIMIT_MS }).toBeGreaterThanOrEqual(2);
    expect(hub.sessions.size).toBe(0);
  });
});
