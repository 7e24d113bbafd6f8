// Resume end to end over real sockets: a @moq/lite publisher → relay A → relay B ← a @moq/lite
// subscriber reading with recvGroup, where the A hop is replaced four times in a row while groups
// are in transfer: a SIGKILL failover (the child relay dies without a word) and then three GOAWAY
// handovers. Every group arrives once, complete and in order.
import { once } from "node:events";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import type { Relay } from "../server/relay.js";
import { childRelay } from "./child-relay.test-helpers.js";
import { clusterRelay, expectContiguous, metric, publisher, routable, subscriber, tcpUrl } from "./cluster-harness.test-helpers.js";
import { e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();
const FRAMES = 5;
let timer: ReturnType<typeof setInterval> | undefined;
afterEach(() => {
  clearInterval(timer);
});

/** The upstream session feeding `edge`'s track, if any. */
function feeding(edge: Relay) {
  return edge.cluster.peers.map((peer) => peer.session).find((s) => s !== undefined && edge.origin.fedBy(s) === 1);
}

describe("resume across a chain of upstream changes", () => {
  it("a SIGKILL failover and three GOAWAY handovers in a row mid-transfer deliver every group once, complete and in order", async () => {
    const origin = await testRelay(cleanup);
    const killed = await childRelay(cleanup, ["--tcp-port", "0", "--peer", tcpUrl(origin)]);
    if (killed.ports.tcp === undefined) throw new Error("the child relay has no tcp port");
    const hops = [await clusterRelay(cleanup, [tcpUrl(origin)])];
    for (let i = 0; i < 3; i++) hops.push(await clusterRelay(cleanup, [tcpUrl(origin)]));
    const [first, ...next] = hops;
    if (first === undefined) throw new Error("no hop");
    const edge = await clusterRelay(cleanup, [`tcp://127.0.0.1:${String(killed.ports.tcp)}?cost=1`, tcpUrl(first, 2)]);
    const pub = publisher(cleanup, origin);
    for (const hop of hops) await routable(hop, "every hop has the broadcast");
    await until(() => edge.origin.routes("anon/live").length === 2, 10_000, "the edge has both routes");
    const received = await subscriber(cleanup, edge);
    const writer = await pub;

    // Frames keep flowing through every change: one every few ms, FRAMES per group.
    let group = 0;
    let frame = 0;
    timer = setInterval(() => {
      writer.frames(group, frame, frame + 1);
      frame += 1;
      if (frame === FRAMES) {
        writer.close();
        group += 1;
        frame = 0;
      }
    }, 4);
    const flowing = async (what: string): Promise<void> => {
      const target = group + 3;
      await until(() => received.groups.length >= target, 10_000, () => `${what} (got ${received.summary()})`);
      // Every change lands while a group is mid-transfer.
      await until(() => frame === 2, 2000, "a group half written");
    };
    await flowing("groups through the child relay");

    const exited = once(killed.child, "exit");
    killed.child.kill("SIGKILL");
    await within(exited, 5000, "child exit");
    await until(() => feeding(edge) !== undefined && edge.cluster.peers[1]?.session === feeding(edge), 5000, "failed over");
    await flowing("groups after the failover");

    let current: Relay = first;
    for (const hop of next) {
      const before = feeding(edge);
      const drained = await current.drain({ uri: tcpUrl(hop, 2), timeoutMs: WAIT_LIMIT_MS, stopAccepting: true });
      expect(drained.forced).toBe(0);
      await until(() => feeding(edge) !== undefined && feeding(edge) !== before, 5000, "handed over");
      await flowing("groups after the handover");
      current = hop;
    }

    clearInterval(timer);
    writer.frames(group, frame, FRAMES);
    writer.close();
    const total = group + 1;
    await until(() => received.count() === total * FRAMES, 10_000, () => `every frame of groups 0-${String(group)} (got ${received.summary()})`);
    expectContiguous(received, 0, total, FRAMES);
    expect(await metric(edge, "relay_track_routes_total", 'reason="failover"')).toBe(1);
    expect(await metric(edge, "relay_track_routes_total", 'reason="handover"')).toBe(3);
    expect(await metric(edge, "relay_groups_incomplete_total")).toBe(0);
  });
});
