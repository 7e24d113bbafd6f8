import { ManualClock } from "@handoff/seqlog";
import { Track } from "@handoff/moq-resume";
import { describe, expect, it } from "vitest";
import { Origin, type AnnounceEvent } from "./origin.js";
import type { PlaceCopy, RouteSource } from "./route.js";

/** A route source that counts the upstream subscriptions it was asked for. */
function source(id: number): RouteSource & { asked: string[]; cancelled: number } {
  const s = {
    id,
    asked: [] as string[],
    cancelled: 0,
    subscribeUpstream(path: string, track: string, _priority: number, place: PlaceCopy) {
      s.asked.push(`${path}:${track}`);
      const copy = new Track(track, { clock: new ManualClock() });
      place(copy);
      return {
        track: copy,
        cancel: () => {
          s.cancelled += 1;
        },
        cap: () => undefined,
      };
    },
  };
  return s;
}

describe("Origin", () => {
  it("makes an announced broadcast routable and lists it under its prefix", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    o.announce("/room/a/", source(1), []);
    expect(o.announced("room").map((e) => e.path)).toEqual(["room/a"]);
    expect(o.announced("roo")).toEqual([]);
  });

  it("shares one upstream subscription among every reader of a track", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const pub = source(1);
    o.announce("room/a", pub, []);
    const a = o.subscribe("room/a", "video", 0, source(2));
    const b = o.subscribe("room/a", "video", 0, source(3));
    expect(a.ok && b.ok && a.track === b.track).toBe(true);
    expect(pub.asked).toEqual(["room/a:video"]);
  });

  it("cancels upstream only when the last reader releases", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const pub = source(1);
    o.announce("room/a", pub, []);
    const a = o.subscribe("room/a", "video", 0, undefined);
    const b = o.subscribe("room/a", "video", 0, undefined);
    if (!a.ok || !b.ok) throw new Error("not routed");
    a.release();
    expect(pub.cancelled).toBe(0);
    b.release();
    b.release();
    expect(pub.cancelled).toBe(1);
    expect(o.sharedTracks).toBe(0);
  });

  it("subscribes afresh once the shared copy ended", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const pub = source(1);
    o.announce("room/a", pub, []);
    const a = o.subscribe("room/a", "video", 0, undefined);
    if (!a.ok) throw new Error("not routed");
    o.upstreamCopy("room/a", "video")?.finish();
    const b = o.subscribe("room/a", "video", 0, undefined);
    expect(b.ok && b.track !== a.track).toBe(true);
    expect(pub.asked).toHaveLength(2);
  });

  it("refuses a subscription with no route", () => {
    expect(new Origin(7, { clock: new ManualClock() }).subscribe("nope", "video", 0, undefined)).toEqual({ ok: false, reason: "not-found" });
  });

  it("never routes a subscription back to the session that published it", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const pub = source(1);
    o.announce("room/a", pub, []);
    expect(o.subscribe("room/a", "video", 0, pub).ok).toBe(false);
    expect(pub.asked).toEqual([]);
  });

  it("routes through the cheapest, then shortest route", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const far = source(1);
    const near = source(2);
    o.announce("room/a", far, [10, 11], 0);
    o.announce("room/a", near, [10], 0);
    o.subscribe("room/a", "video", 0, undefined);
    expect(near.asked).toHaveLength(1);
    expect(far.asked).toHaveLength(0);
  });

  it("falls back to the next route when the best one leaves", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const a = source(1);
    const b = source(2);
    o.announce("room/x", a, [], 0);
    o.announce("room/x", b, [], 5);
    o.removeSource(a);
    o.subscribe("room/x", "t", 0, undefined);
    expect(b.asked).toEqual(["room/x:t"]);
  });

  it("tells watchers when a broadcast appears and when its last route goes", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const events: AnnounceEvent[] = [];
    const w = o.watch("room", undefined, (e) => events.push(e));
    const a = source(1);
    const b = source(2);
    o.announce("room/a", a, [5]);
    o.announce("room/a", b, [6]);
    o.unannounce("room/a", a);
    o.unannounce("room/a", b);
    // b's fresher announce takes over as the best route: an update, not a second announce.
    expect(events).toEqual([
      { path: "room/a", active: true, hops: [5], cost: 0 },
      { path: "room/a", active: true, hops: [6], cost: 0, update: true },
      { path: "room/a", active: false, hops: [], cost: 0 },
    ]);
    w.close();
    o.announce("room/b", a, []);
    expect(events).toHaveLength(3);
  });

  it("reports the best route's cost, and an update when a cheaper route takes over", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const events: AnnounceEvent[] = [];
    o.watch("", undefined, (e) => events.push(e));
    o.announce("cam", source(1), [5], 4);
    o.announce("cam", source(2), [6, 8], 9);
    o.announce("cam", source(3), [7, 8, 9], 2);
    expect(events).toEqual([
      { path: "cam", active: true, hops: [5], cost: 4 },
      { path: "cam", active: true, hops: [7, 8, 9], cost: 2, update: true },
    ]);
  });

  it("hides a session's own broadcasts from its watcher (split horizon)", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    const self = source(1);
    const events: AnnounceEvent[] = [];
    o.watch("", self, (e) => events.push(e));
    o.announce("mine", self, []);
    expect(events).toEqual([]);
    o.announce("mine", source(2), []);
    expect(events.map((e) => e.active)).toEqual([true]);
  });

  it("gives a new watcher the current set", () => {
    const o = new Origin(7, { clock: new ManualClock() });
    o.announce("room/b", source(1), []);
    o.announce("room/a", source(2), []);
    expect(o.watch("room", undefined, () => undefined).initial.map((e) => e.path)).toEqual(["room/a", "room/b"]);
  });

  it("refuses a zero hop id", () => {
    expect(() => new Origin(0, { clock: new ManualClock() })).toThrow(RangeError);
  });
});
