import * as Moq from "@moq/lite";
import { describe, expect, it } from "vitest";
import type { Relay } from "../server/relay.js";
import { connect, e2eSetup, payload, testRelay, trackPublisher, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();

async function client(r: Relay, version: "default" | "lite-04" = "default"): Promise<Moq.Connection.Established> {
  const c = await connect(r.ports.http, "anon", version);
  cleanup.push(() => {
    c.close();
  });
  return c;
}


function publishGroups(source: Moq.Track, from: number, to: number, frames = 4): void {
  for (let g = from; g < to; g++) {
    const group = source.appendGroup();
    for (let f = 0; f < frames; f++) group.writeFrame(payload(g, f));
    group.close();
  }
}

async function readGroup(track: Moq.Track): Promise<{ sequence: number; frames: Uint8Array[] } | undefined> {
  const group = await within(track.nextGroupOrdered(), 3000, "next group");
  if (!group) return undefined;
  const frames: Uint8Array[] = [];
  for (;;) {
    const frame = await within(group.readFrame(), 3000, "next frame");
    if (!frame) break;
    frames.push(frame);
  }
  return { sequence: group.sequence, frames };
}

for (const version of ["default", "lite-04"] as const) {
  describe(`@moq/lite through the relay (${version})`, () => {
    it("negotiates the expected version", async () => {
      const r = await testRelay(cleanup);
      const c = await client(r, version);
      expect(c.version).toBe(version === "default" ? "moq-lite-02" : "moq-lite-04");
    });

    it("delivers every frame of every group to two subscribers, in order", async () => {
      const r = await testRelay(cleanup);
      const pub = trackPublisher(await client(r, version), "live");
      const subs = [await client(r, version), await client(r, version)];
      await until(() => r.origin.routes("anon/live").length > 0, 2000, "broadcast routable");
      const tracks = subs.map((s) => s.consume(Moq.Path.from("live")).subscribe("video", 0));
      await until(() => pub.tracks.length === 1, 2000, "publisher asked for the track");
      const source = pub.tracks[0];
      if (source === undefined) throw new Error("no track");
      // Both downstream readers share one upstream subscription.
      expect(r.origin.sharedTracks).toBe(1);
      await until(() => [...r.sessions].reduce((n, s) => n + s.subscriptions, 0) === 2, 2000, "both subscribed");
      publishGroups(source, 0, 5);
      for (const track of tracks) {
        for (let g = 0; g < 5; g++) {
          const got = await readGroup(track);
          expect(got?.sequence).toBe(g);
          expect(got?.frames).toEqual([0, 1, 2, 3].map((f) => payload(g, f)));
        }
      }
    });
  });
}

describe("@moq/lite lifecycle through the relay", () => {
  it("discovers a broadcast when it is announced and when it ends", async () => {
    const r = await testRelay(cleanup);
    const watcher = await client(r);
    const announced = watcher.announced(Moq.Path.from(""));
    const pubConn = await connect(r.ports.http, "anon");
    trackPublisher(pubConn, "room/cam");
    const first = await within(announced.next(), 3000, "announce");
    expect(first).toEqual({ path: "room/cam", active: true });
    pubConn.close();
    const second = await within(announced.next(), 3000, "unannounce");
    expect(second).toEqual({ path: "room/cam", active: false });
  });

  it("lists the initial set to a late watcher", async () => {
    const r = await testRelay(cleanup);
    trackPublisher(await client(r, "lite-04"), "a");
    trackPublisher(await client(r, "lite-04"), "b");
    await until(() => r.origin.broadcasts === 2, 2000, "both routable");
    const watcher = await client(r, "lite-04");
    const announced = watcher.announced(Moq.Path.from(""));
    const seen = [await within(announced.next(), 3000, "first"), await within(announced.next(), 3000, "second")];
    expect(seen.map((e) => e?.path).sort()).toEqual(["a", "b"]);
  });

  it("starts a late joiner at the live edge", async () => {
    const r = await testRelay(cleanup);
    const pub = trackPublisher(await client(r), "live");
    await until(() => r.origin.broadcasts === 1, 2000, "routable");
    const early = (await client(r)).consume(Moq.Path.from("live")).subscribe("video", 0);
    await until(() => pub.tracks.length === 1, 2000, "upstream subscription");
    const source = pub.tracks[0];
    if (source === undefined) throw new Error("no track");
    publishGroups(source, 0, 5);
    for (let g = 0; g < 5; g++) expect((await readGroup(early))?.sequence).toBe(g);
    const late = (await client(r)).consume(Moq.Path.from("live")).subscribe("video", 0);
    await until(() => [...r.sessions].reduce((n, s) => n + s.subscriptions, 0) === 2, 2000, "late subscribed");
    publishGroups(source, 5, 7);
    const got = await readGroup(late);
    // The live edge: the newest group at join time or the next one, never the backlog.
    expect(got?.sequence).toBeGreaterThanOrEqual(4);
    expect(got?.frames).toEqual([0, 1, 2, 3].map((f) => payload(got?.sequence ?? -1, f)));
    // Still one upstream subscription for both readers.
    expect(pub.tracks).toHaveLength(1);
  });

  it("cancels the upstream subscription once the last subscriber left and the linger passed", async () => {
    const r = await testRelay(cleanup, undefined, { trackLingerMs: 300 });
    const pub = trackPublisher(await client(r), "live");
    await until(() => r.origin.broadcasts === 1, 2000, "routable");
    const track = (await client(r)).consume(Moq.Path.from("live")).subscribe("video", 0);
    await until(() => pub.tracks.length === 1 && r.origin.sharedTracks === 1, 2000, "subscribed");
    track.close();
    // Still held while it lingers (a reader coming back would continue the same copy). Read in
    // the poll that first sees the unsubscribe: its 10 ms timer is due before the 300 ms linger's,
    // so timers run it first however late a loaded machine wakes the process.
    let heldWhenUnsubscribed: number | undefined;
    await until(() => {
      if (![...r.sessions].every((s) => s.subscriptions === 0)) return false;
      heldWhenUnsubscribed ??= r.origin.sharedTracks;
      return true;
    }, 2000, "unsubscribed");
    expect(heldWhenUnsubscribed).toBe(1);
    await until(() => r.origin.sharedTracks === 0, 3000, "upstream released");
    const upstream = pub.tracks[0];
    if (upstream === undefined) throw new Error("no track");
    await within(upstream.closed, 2000, "publisher track closed");
    expect([...r.sessions].reduce((n, s) => n + s.subscriptions, 0)).toBe(0);
  });

  it("ends subscriptions and the route when the publisher disconnects", async () => {
    const r = await testRelay(cleanup);
    const pubConn = await connect(r.ports.http, "anon", "lite-04");
    const pub = trackPublisher(pubConn, "live");
    await until(() => r.origin.broadcasts === 1, 2000, "routable");
    const track = (await client(r, "lite-04")).consume(Moq.Path.from("live")).subscribe("video", 0);
    await until(() => pub.tracks.length === 1, 2000, "subscribed");
    const source = pub.tracks[0];
    if (source === undefined) throw new Error("no track");
    publishGroups(source, 0, 1);
    expect((await readGroup(track))?.sequence).toBe(0);
    pubConn.close();
    const end = await within(
      track.nextGroupOrdered().then(
        (g) => (g === undefined ? "ended" : "group"),
        () => "ended",
      ),
      3000,
      "subscription end",
    );
    expect(end).toBe("ended");
    await until(() => r.origin.broadcasts === 0, 2000, "route withdrawn");
  });

  it("refuses a subscription to a broadcast nobody publishes", async () => {
    const r = await testRelay(cleanup);
    const track = (await client(r)).consume(Moq.Path.from("nothing")).subscribe("video", 0);
    const end = await within(
      track.nextGroupOrdered().then(
        () => "resolved",
        () => "rejected",
      ),
      3000,
      "refusal",
    );
    expect(end).toBe("rejected");
  });
});
