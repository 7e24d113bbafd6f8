import { describe, expect, it } from "vitest";
import { e2eSetup, testRelay, until, within } from "./harness.js";
import { connectNet, frameText, liveTrack, NET_OFFERS, netPublisher, netVersion, readNetGroup, writeGroups } from "./net-harness.js";

const cleanup = e2eSetup();

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
      await until(() => [...r.sessions].reduce((n, s) => n + s.subscriptions, 0) === 1, 3000, "subscribed");
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
  });
}
