// The relay as a real child process: SIGKILLed mid-group (failover without GOAWAY: the edge moves
// the track to the sibling, which continues the open group at the first missing frame), and
// SIGTERMed (a drain: its peers get GOAWAY toward --redirect and the process exits 0).
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { describe, expect, it } from "vitest";
import type { Relay } from "../server/relay.js";
import { childRelay } from "./child-relay.test-helpers.js";
import { clusterRelay, expectContiguous, metric, publisher, routable, subscriber, tcpUrl } from "./cluster-harness.test-helpers.js";
import { e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();
const FRAMES = 4;

/** The relay's real entry point as a child process linked to `peers`, with its raw-TCP port. */
async function linkedChild(peers: readonly string[], extra: readonly string[] = []): Promise<{ child: ChildProcess; tcpPort: number }> {
  const relay = await childRelay(cleanup, ["--tcp-port", "0", ...peers.flatMap((peer) => ["--peer", peer]), ...extra]);
  if (relay.ports.tcp === undefined) throw new Error("the child relay has no tcp port");
  return { child: relay.child, tcpPort: relay.ports.tcp };
}

describe("failover without GOAWAY", () => {
  it("the upstream is SIGKILLed mid-group and the track fails over to the sibling without a gap or a repeat", async () => {
    const origin = await testRelay(cleanup);
    const a = await linkedChild([tcpUrl(origin)]);
    const b = await clusterRelay(cleanup, [tcpUrl(origin)]);
    const down = await clusterRelay(cleanup, [`tcp://127.0.0.1:${String(a.tcpPort)}?cost=1`, tcpUrl(b, 2)]);
    const pub = publisher(cleanup, origin);
    await routable(b, "B has the broadcast");
    await until(() => down.origin.routes("anon/live").length === 2, 5000, "the edge has routes through A and B");
    const received = await subscriber(cleanup, down);
    const writer = await pub;
    writer.groups(0, 1, FRAMES);
    writer.frames(1, 0, 2);
    await until(() => received.count() === FRAMES + 2, 5000, "group 0 and half of group 1 through A");
    const [viaA, viaB] = linksOf(down);
    if (viaA === undefined || viaB === undefined) throw new Error("not linked to both peers");
    expect(down.origin.fedBy(viaA)).toBe(1);

    const exited = once(a.child, "exit");
    a.child.kill("SIGKILL");
    await within(exited, 5000, "child exit");
    await until(() => down.origin.fedBy(viaB) === 1, 5000, "the edge failed over to B");
    writer.frames(1, 2, FRAMES);
    writer.close();
    writer.groups(2, 4, FRAMES);
    await until(() => received.count() === 4 * FRAMES, 5000, "every frame of groups 0-3");
    expectContiguous(received, 0, 4, FRAMES);
    expect(await metric(down, "relay_track_routes_total", 'reason="failover"')).toBe(1);
  });
});

describe("SIGTERM", () => {
  it("drains the relay process: its linked peers get GOAWAY and follow the redirect, then it exits 0", async () => {
    const sibling = await testRelay(cleanup);
    const a = await linkedChild([], ["--redirect", tcpUrl(sibling), "--drain-timeout", String(WAIT_LIMIT_MS)]);
    const down = await clusterRelay(cleanup, [`tcp://127.0.0.1:${String(a.tcpPort)}`]);
    await until(() => down.cluster.peers[0]?.session?.version !== undefined, 5000, "linked to the child");
    const exited = once(a.child, "exit");
    a.child.kill("SIGTERM");
    await until(() => down.cluster.peers[0]?.address.url === tcpUrl(sibling), 5000, "the edge followed the redirect");
    const [code] = (await within(exited, 8000, "child exit")) as [number | null];
    expect(code).toBe(0);
    expect(await metric(down, "relay_goaway_total", 'direction="received"')).toBe(1);
    await until(() => down.cluster.peers[0]?.session?.version !== undefined, 5000, "linked to the sibling");
  });
});

/** The edge's live links, in peer order. */
function linksOf(relay: Relay) {
  return relay.cluster.peers.map((peer) => {
    const session = peer.session;
    if (session === undefined) throw new Error(`no link to ${peer.address.url}`);
    return session;
  });
}
