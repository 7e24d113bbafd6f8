import { describe, expect, it } from "vitest";
import { clusterRelay, tcpUrl } from "./cluster-harness.test-helpers.js";
import { e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";
import { connectNet, liveTrack, net, type NetConnection, type NetOffer, type NetSubscriber, type NetTrackInfo, netPublisher, type NetTrackProducer } from "./net-harness.test-helpers.js";

const cleanup = e2eSetup();

/** Publishes `live` on `conn` with `info` and waits until the relay asked for `video`. */
async function publishVideo(conn: NetConnection, info: NetTrackInfo): Promise<() => Promise<NetTrackProducer>> {
  const pub = await netPublisher(conn, "live", info);
  return () => liveTrack(pub);
}

/** Writes one group of frames stamped `stamps` (in `scale` units) on `track`. */
async function writeStamped(track: NetTrackProducer, stamps: readonly number[], scale: number): Promise<void> {
  const Moq = await net();
  const group = track.appendGroup();
  for (const stamp of stamps) group.writeFrame({ payload: new TextEncoder().encode(`t${String(stamp)}`), timestamp: new Moq.Time.Timestamp(stamp, scale) });
  group.close();
}

/** Reads the next group's frame timestamps as `value@scale`. */
async function readStamps(sub: NetSubscriber): Promise<string[]> {
  const group = await within(sub.recvGroup(), 4000, "next group");
  if (!group) throw new Error("track ended");
  const stamps: string[] = [];
  for (;;) {
    const frame = await within(group.readFrame(), 4000, "next frame");
    if (!frame) return stamps;
    stamps.push(`${String(frame.timestamp.value)}@${String(frame.timestamp.scale)}`);
  }
}

const OFFERS: readonly NetOffer[] = ["default", "qmux-02.moq-lite-06-wip"];

for (const offer of OFFERS) {
  describe(`TRACK_INFO through the relay with @moq/net 0.3 (${offer})`, () => {
    it("forwards the publisher's timescale, latency, priority and order, and its timestamps unchanged", async () => {
      const r = await testRelay(cleanup);
      const info = { timescale: 90_000, latencyMax: 2500, priority: 7, ordered: true };
      const video = await publishVideo(await connectNet(cleanup, r.ports.http, "anon", offer), info);
      await until(() => r.origin.routes("anon/live").length > 0, 4000, "broadcast routable");
      const subConn = await connectNet(cleanup, r.ports.http, "anon", offer);
      const sub = subConn.consume("live").subscribe("video");
      expect(await within(sub.info(), 4000, "track info")).toEqual(info);
      const track = await video();
      await until(() => [...r.sessions].reduce((n, s) => n + s.subscriptions, 0) === 1, 4000, "subscribed");
      // Two seconds and a bit at 90 kHz: read at a 1 kHz default they would be 90 times too late.
      await writeStamped(track, [180_000, 183_000, 186_000], 90_000);
      expect(await readStamps(sub)).toEqual(["180000@90000", "183000@90000", "186000@90000"]);

      // A later subscriber is answered from the relay's cache.
      const late = (await connectNet(cleanup, r.ports.http, "anon", offer)).consume("live").subscribe("video");
      expect(await within(late.info(), 4000, "track info (late)")).toEqual(info);
      expect(r.origin.trackInfos).toBe(1);
    });
  });
}

describe("TRACK_INFO across a relay chain", () => {
  it("reaches a subscriber two relays from a 1 MHz publisher, timestamps intact", async () => {
    const origin = await testRelay(cleanup);
    const edge = await clusterRelay(cleanup, [tcpUrl(origin)]);
    const info = { timescale: 1_000_000, latencyMax: 8000, priority: 3, ordered: false };
    const video = await publishVideo(await connectNet(cleanup, origin.ports.http, "anon"), info);
    await until(() => edge.origin.routes("anon/live").length > 0, 5000, "broadcast routable at the edge");
    const sub = (await connectNet(cleanup, edge.ports.http, "anon")).consume("live").subscribe("video");
    expect(await within(sub.info(), 5000, "track info at the edge")).toEqual(info);
    expect(origin.origin.trackInfos).toBe(1);
    expect(edge.origin.trackInfos).toBe(1);
    const track = await video();
    await until(() => [...origin.sessions].reduce((n, s) => n + s.subscriptions, 0) === 1, 5000, "the edge subscribed upstream");
    await writeStamped(track, [5_000_000, 5_040_000], 1_000_000);
    expect(await readStamps(sub)).toEqual(["5000000@1000000", "5040000@1000000"]);
  });
});
