// @moq/net 0.3 (today's official client) through the relay, once per version and qmux it speaks:
// publish and subscribe, announce discovery and its end, a late joiner in the middle of a group,
// and a GOAWAY handover between two relays while a group is half read. Every step is bounded.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { describe, expect, it } from "vitest";
import type { Relay } from "../server/relay.js";
import { clusterRelay, tcpUrl } from "./cluster-harness.test-helpers.js";
import { e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";
import { collect, connectNet, expectedGroups, frameText, liveTrack, NET_OFFERS, type NetOffer, netPublisher, netVersion, readNetGroup, writeGroups } from "./net-harness.test-helpers.js";

const cleanup = e2eSetup();

function subscriptions(relay: Relay): number {
  return [...relay.sessions].reduce((n, s) => n + s.subscriptions, 0);
}

/** A @moq/net publisher of `anon/live` on `relay`, routable at `relays`; resolves its `video` track once asked. */
async function livePublisher(relay: Relay, offer: NetOffer, relays: readonly Relay[] = [relay]) {
  const pub = await netPublisher(await connectNet(cleanup, relay.ports.http, "anon", offer), "live");
  for (const r of relays) await until(() => r.origin.routes("anon/live").length > 0, 5000, "broadcast routable");
  return () => liveTrack(pub, 5000);
}

for (const offer of NET_OFFERS) {
  describe(`@moq/net 0.3 through the relay (${offer})`, () => {
    it(`negotiates ${netVersion(offer)} and delivers every frame of every group`, async () => {
      const r = await testRelay(cleanup);
      const pubConn = await connectNet(cleanup, r.ports.http, "anon", offer);
      expect(pubConn.version).toBe(netVersion(offer));
      // The client prefers qmux-02; a pinned offer gets the qmux version it names.
      const qmux = offer === "default" ? "qmux-02" : offer.slice(0, "qmux-0X".length);
      expect([...r.sessions].map((s) => s.qmuxVersion)).toEqual([qmux]);
      const pub = await netPublisher(pubConn, "live");
      const subConn = await connectNet(cleanup, r.ports.http, "anon", offer);
      await until(() => r.origin.routes("anon/live").length > 0, 3000, "broadcast routable");
      const sub = subConn.consume("live").subscribe("video", { ordered: true, latencyMax: 5000 });
      const source = await liveTrack(pub, 3000);
      await until(() => subscriptions(r) === 1, 3000, "subscribed");
      writeGroups(source, 0, 4);
      for (let g = 0; g < 4; g++) {
        expect(await readNetGroup(sub)).toEqual({ sequence: g, frames: [0, 1, 2].map((f) => frameText(g, f)) });
      }
    });

    it("discovers a broadcast when it is announced and when it ends", async () => {
      const r = await testRelay(cleanup);
      const watcher = await connectNet(cleanup, r.ports.http, "anon", offer);
      const announced = watcher.announced("");
      const pubConn = await connectNet(cleanup, r.ports.http, "anon", offer);
      await netPublisher(pubConn, "room/cam");
      expect(await within(announced.next(), 3000, "announce")).toEqual({ path: "room/cam", active: true });
      pubConn.close();
      expect(await within(announced.next(), 3000, "unannounce")).toEqual({ path: "room/cam", active: false });
    });

    it("a subscriber joining in the middle of a group gets that group from its first frame, then the next", async () => {
      const r = await testRelay(cleanup);
      const video = await livePublisher(r, offer);
      const early = collect((await connectNet(cleanup, r.ports.http, "anon", offer)).consume("live").subscribe("video"));
      const track = await video();
      await until(() => subscriptions(r) === 1, 4000, "first subscriber");
      const open = track.appendGroup();
      open.writeString(frameText(0, 0));
      open.writeString(frameText(0, 1));
      await until(() => early.count() === 2, 4000, "the first subscriber read half of group 0");
      const late = collect((await connectNet(cleanup, r.ports.http, "anon", offer)).consume("live").subscribe("video"));
      await until(() => subscriptions(r) === 2, 4000, "the late subscriber");
      await until(() => late.count() === 2, 4000, () => `the late subscriber got the head of group 0 (got ${late.summary()})`);
      open.writeString(frameText(0, 2));
      open.close();
      writeGroups(track, 1, 2);
      for (const sub of [early, late]) await until(() => sub.count() === 6, 4000, () => `groups 0 and 1 (got ${sub.summary()})`);
      expect(late.groups).toEqual(expectedGroups(0, 2));
      expect(early.groups).toEqual(expectedGroups(0, 2));
    });

    it("a GOAWAY between two relays while a group is half read: the subscriber gets every frame once", async () => {
      const origin = await testRelay(cleanup);
      const a = await clusterRelay(cleanup, [tcpUrl(origin)]);
      const b = await clusterRelay(cleanup, [tcpUrl(origin)]);
      const edge = await clusterRelay(cleanup, [tcpUrl(a)]);
      const video = await livePublisher(origin, offer, [a, b, edge]);
      const received = collect((await connectNet(cleanup, edge.ports.http, "anon", offer)).consume("live").subscribe("video"));
      const track = await video();
      writeGroups(track, 0, 1);
      const open = track.appendGroup();
      open.writeString(frameText(1, 0));
      await until(() => received.count() === 4, 5000, () => `group 0 and the head of group 1 through A (got ${received.summary()})`);
      const before = edge.cluster.peers[0]?.session;
      const drained = a.drain({ uri: tcpUrl(b), timeoutMs: WAIT_LIMIT_MS, stopAccepting: false });
      await until(() => {
        const now = edge.cluster.peers[0]?.session;
        return now !== undefined && now !== before && edge.origin.fedBy(now) === 1;
      }, 5000, "the edge resubscribed through B");
      open.writeString(frameText(1, 1));
      open.writeString(frameText(1, 2));
      open.close();
      writeGroups(track, 2, 4);
      await until(() => received.count() === 12, 5000, () => `every frame of groups 0-3 (got ${received.summary()})`);
      expect(received.groups).toEqual(expectedGroups(0, 4));
      expect(await drained).toEqual({ told: 1, left: 1, forced: 0 });
    });
  });
}
