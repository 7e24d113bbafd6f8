// Cluster links beyond a chain: a WebSocket link with a path scope, and a triangle of relays where
// announces must not loop and must not outlive the publisher.
import { describe, expect, it } from "vitest";
import { clusterRelay, expectContiguous, publisher, routable, subscriber, tcpUrl } from "./cluster-harness.test-helpers.js";
import { connect, e2eSetup, testRelay, until } from "./harness.test-helpers.js";
import * as Moq from "@moq/lite";

const cleanup = e2eSetup();

describe("cluster links", () => {
  it("links over qmux/WebSocket with the URL path as the scope, and carries the track", async () => {
    const a = await testRelay(cleanup);
    const down = await clusterRelay(cleanup, [`ws://127.0.0.1:${String(a.ports.http)}/anon?cost=3`]);
    const pub = publisher(cleanup, a);
    await routable(down, "the broadcast crossed the WebSocket link");
    expect(down.origin.routes("anon/live").map((r) => r.cost)).toEqual([3]);
    const received = await subscriber(cleanup, down);
    const writer = await pub;
    writer.groups(0, 3, 4);
    await until(() => received.count() === 12, 5000, "frames across the link");
    expectContiguous(received, 0, 3, 4);
  });

  it("a triangle of relays carries a broadcast everywhere, discards looped announces, and forgets it everywhere when the publisher leaves", async () => {
    const c = await testRelay(cleanup);
    const b = await clusterRelay(cleanup, [tcpUrl(c)]);
    const a = await clusterRelay(cleanup, [tcpUrl(b), tcpUrl(c)]);
    await until(() => a.cluster.peers.every((p) => p.session !== undefined) && b.cluster.peers[0]?.session !== undefined, 5000, "linked");
    const conn = await connect(a.ports.http, "anon");
    const broadcast = new Moq.Broadcast();
    conn.publish(Moq.Path.from("live"), broadcast);
    for (const r of [b, c]) await routable(r, "the broadcast reached every relay");
    // Every route a relay holds names the publisher's relay first, and never the holder itself.
    for (const r of [a, b, c]) {
      for (const route of r.origin.routes("anon/live")) expect(route.hops).not.toContain(r.origin.hopId);
    }
    expect(b.origin.routes("anon/live")[0]?.hops).toEqual([a.origin.hopId]);
    conn.close();
    await until(() => [a, b, c].every((r) => r.origin.broadcasts === 0), 5000, "no relay keeps a ghost route");
    // And it stays gone (no announce bouncing between B and C).
    await new Promise((r) => setTimeout(r, 200));
    expect([a, b, c].map((r) => r.origin.broadcasts)).toEqual([0, 0, 0]);
  });
});
