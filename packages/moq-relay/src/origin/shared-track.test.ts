import { ResumeTrack, Track } from "@handoff/moq-resume";
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it, vi } from "vitest";
import { Origin } from "./origin.js";
import type { TrackMove } from "./shared-track.js";
import { Drain, fakeSource, lastCopy } from "./test-source.test-helpers.js";

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function setup() {
  const moves: TrackMove[] = [];
  const origin = new Origin(7, { clock: new ManualClock(), onMove: (m) => moves.push(m) });
  const a = fakeSource(1);
  const b = fakeSource(2);
  return { origin, a, b, moves };
}

function subscribe(origin: Origin, path = "room/cam") {
  const sub = origin.subscribe(path, "video", 0, undefined);
  if (!sub.ok) throw new Error(`not routed: ${sub.reason}`);
  return sub;
}

describe("shared tracks across route changes", () => {
  it("fails over to the next route at the first missing group when the copy's route dies", () => {
    const { origin, a, b, moves } = setup();
    origin.announce("room/cam", a, [1], 0);
    origin.announce("room/cam", b, [2], 5);
    const reader = new Drain(subscribe(origin).track);
    const first = lastCopy(a).track;
    first.createGroup(0).finish();
    first.createGroup(1).finish();
    reader.pump();
    first.drop(); // the session to A is gone
    const second = lastCopy(b);
    expect(second.boundary).toEqual({ group: 2, frame: 0 });
    second.track.createGroup(2).finish();
    reader.pump();
    expect(reader.handed).toEqual([0, 1, 2]);
    expect(moves.map((m) => m.reason)).toEqual(["first", "failover"]);
  });

  it("fails over a copy that died before delivering anything at the group its peer said it starts at, not at the live edge", () => {
    const { origin, a, b, moves } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    const reader = new Drain(subscribe(origin).track);
    // A's SUBSCRIBE_START named group 3; its session dies before group 3 reaches the relay.
    lastCopy(a).startedAt = 3;
    lastCopy(a).track.drop();
    expect(moves.map((m) => m.reason)).toEqual(["first", "failover"]);
    expect(lastCopy(b).boundary).toEqual({ group: 3, frame: 0 });
    lastCopy(b).track.createGroup(3).finish();
    lastCopy(b).track.createGroup(4).finish();
    reader.pump();
    expect(reader.handed).toEqual([3, 4]);
  });

  it("fails over a first copy asked from an explicit start that died before delivering at that start", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    expect(origin.subscribe("room/cam", "video", 0, undefined, 5).ok).toBe(true);
    lastCopy(a).track.drop();
    expect(lastCopy(b).boundary).toEqual({ group: 5, frame: 0 });
  });

  it("asks the first copy for the first reader's explicit start (a sibling resuming a track)", () => {
    const { origin, a } = setup();
    origin.announce("room/cam", a, [1]);
    const sub = origin.subscribe("room/cam", "video", 0, undefined, 5);
    expect(sub.ok).toBe(true);
    expect(lastCopy(a).boundary).toEqual({ group: 5, frame: 0 });
  });

  it("gives a reader whose explicit start the shared copy no longer holds its own copy from there", () => {
    const { origin, a } = setup();
    origin.announce("room/cam", a, [1]);
    const live = subscribe(origin);
    for (let g = 5; g <= 7; g++) lastCopy(a).track.createGroup(g).finish();
    const late = origin.subscribe("room/cam", "video", 0, undefined, 2);
    if (!late.ok) throw new Error("not routed");
    expect(late.track).not.toBe(live.track);
    expect(a.copies.map((c) => c.boundary)).toEqual([undefined, { group: 2, frame: 0 }]);
    // A start the shared copy holds, or one not produced yet, shares it.
    const held = origin.subscribe("room/cam", "video", 0, undefined, 6);
    const future = origin.subscribe("room/cam", "video", 0, undefined, 9);
    expect(held.ok && future.ok && held.track === live.track && future.track === live.track).toBe(true);
    expect(a.copies).toHaveLength(2);
  });

  it("asks the first copy for the live edge when the first reader gave no start", () => {
    const { origin, a } = setup();
    origin.announce("room/cam", a, [1]);
    subscribe(origin);
    expect(lastCopy(a).boundary).toBeUndefined();
  });

  it("continues an open group frame by frame on the new route when the old one dies mid-group", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    const reader = new Drain(subscribe(origin).track);
    const g = lastCopy(a).track.createGroup(0);
    g.write(bytes("a"));
    g.write(bytes("b"));
    reader.pump();
    lastCopy(a).track.drop();
    const next = lastCopy(b);
    expect(next.boundary).toEqual({ group: 0, frame: 2 });
    const cont = next.track.createGroup(0, { firstFrame: 2 });
    cont.write(bytes("c"));
    cont.finish();
    next.track.createGroup(1).finish();
    reader.pump();
    expect(reader.handed).toEqual([0, 1]);
    expect(reader.text(0)).toBe("abc");
  });

  it("moves a draining route's tracks to the live route and caps the old copy at the open group", () => {
    const { origin, a, b, moves } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 3);
    const reader = new Drain(subscribe(origin).track);
    const g = lastCopy(a).track.createGroup(4);
    g.write(bytes("x"));
    reader.pump();
    origin.drain(a);
    expect(lastCopy(a).capped).toBe(4);
    expect(lastCopy(a).cancelled).toBe(false);
    expect(lastCopy(b).boundary).toEqual({ group: 4, frame: 1 });
    // The old copy finishes the open group; the new one repeats it and goes on.
    g.write(bytes("y"));
    g.finish();
    const cont = lastCopy(b).track.createGroup(4, { firstFrame: 1 });
    cont.write(bytes("y"));
    cont.finish();
    lastCopy(b).track.createGroup(5).finish();
    reader.pump();
    expect(reader.handed).toEqual([4, 5]);
    expect(reader.text(4)).toBe("xy");
    expect(moves.at(-1)).toMatchObject({ reason: "handover", from: 1, to: 2 });
  });

  it("keeps serving from a draining route when it is the only one, and moves once a live route appears", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    const reader = new Drain(subscribe(origin).track);
    lastCopy(a).track.createGroup(0).finish();
    origin.drain(a);
    expect(b.asked).toEqual([]);
    lastCopy(a).track.createGroup(1).finish();
    origin.announce("room/cam", b, [2], 9);
    expect(lastCopy(b).boundary).toEqual({ group: 2, frame: 0 });
    expect(lastCopy(a).capped).toBe(1);
    lastCopy(b).track.createGroup(2).finish();
    reader.pump();
    expect(reader.handed).toEqual([0, 1, 2]);
  });

  it("does not move a track whose route is healthy when a better one appears (no churn)", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1], 5);
    subscribe(origin);
    origin.announce("room/cam", b, [2], 0);
    expect(b.asked).toEqual([]);
  });

  it("treats a copy refused before delivering anything as the answer, not a failover", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    const reader = new Drain(subscribe(origin).track);
    lastCopy(a).track.abort(404);
    reader.pump();
    expect(b.asked).toEqual([]);
    expect(reader.terminal).toBe("error");
  });

  it("fails over a copy that failed after delivering", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    subscribe(origin);
    lastCopy(a).track.createGroup(0).finish();
    lastCopy(a).track.abort(500);
    expect(lastCopy(b).boundary).toEqual({ group: 1, frame: 0 });
  });

  it("drops the track for its readers when no route is left", () => {
    const { origin, a } = setup();
    origin.announce("room/cam", a, [1]);
    const reader = new Drain(subscribe(origin).track);
    lastCopy(a).track.createGroup(0).finish();
    lastCopy(a).track.drop();
    reader.pump();
    expect(reader.handed).toEqual([0]);
    expect(reader.terminal).toBe("error");
    expect(origin.sharedTracks).toBe(0);
  });

  it("finishes the track when the publisher finishes it", () => {
    const { origin, a } = setup();
    origin.announce("room/cam", a, [1]);
    const reader = new Drain(subscribe(origin).track);
    lastCopy(a).track.createGroup(0).finish();
    lastCopy(a).track.finish();
    reader.pump();
    expect(reader.terminal).toBe("finished");
  });

  it("never fails over onto a route through a requester (split horizon)", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    const sub = origin.subscribe("room/cam", "video", 0, b);
    if (!sub.ok) throw new Error("not routed");
    lastCopy(a).track.createGroup(0).finish();
    lastCopy(a).track.drop();
    expect(b.asked).toEqual([]);
  });

  it("reports where a track is fed from and whether a draining source is covered", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    subscribe(origin);
    expect(origin.fedBy(a)).toBe(1);
    origin.drain(a);
    expect(origin.covered(a)).toBe(false);
    origin.announce("room/cam", b, [2]);
    expect(origin.covered(a)).toBe(true);
    expect(origin.fedBy(a)).toBe(0);
    expect(origin.fedBy(b)).toBe(1);
  });

  it("keeps an unread track's copy for the linger time, so a returning reader continues it", () => {
    const clock = new ManualClock();
    const a = fakeSource(1);
    const origin = new Origin(7, { lingerMs: 1000, clock });
    origin.announce("room/cam", a, [1]);
    const first = subscribe(origin);
    lastCopy(a).track.createGroup(0).finish();
    first.release();
    clock.advance(999);
    expect(origin.sweep()).toBe(0);
    const again = subscribe(origin);
    expect(again.track).toBe(first.track);
    expect(a.asked).toHaveLength(1);
    again.release();
    clock.advance(1000);
    expect(origin.sweep()).toBe(1);
    expect(lastCopy(a).cancelled).toBe(true);
    expect(origin.sharedTracks).toBe(0);
  });

  it("does not fail a lingering, unread track over to another route", () => {
    const clock = new ManualClock();
    const a = fakeSource(1);
    const b = fakeSource(2);
    const origin = new Origin(7, { lingerMs: 1000, clock });
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    subscribe(origin).release();
    lastCopy(a).track.drop();
    expect(b.asked).toEqual([]);
    expect(origin.sharedTracks).toBe(0);
  });

  it("lets a reconnect of the same peer replace its stale route at once", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    const reader = new Drain(subscribe(origin).track);
    lastCopy(a).track.createGroup(0).finish();
    reader.pump();
    // The peer reconnected (new session b, same hops) while the old session lingers, draining.
    origin.drain(a);
    origin.announce("room/cam", b, [1]);
    origin.removeSource(a);
    lastCopy(b).track.createGroup(1).finish();
    reader.pump();
    expect(reader.handed).toEqual([0, 1]);
    expect(origin.routes("room/cam").map((r) => r.source.id)).toEqual([2]);
  });
});

/** Counts, per track copy, the wake-ups its watchers get (every `watch` registered from now on, until `restore`). */
function countWakes(): { readonly wakes: Map<Track, number>; restore(): void } {
  const wakes = new Map<Track, number>();
  const watch = Object.getOwnPropertyDescriptor(Track.prototype, "watch")?.value as (this: Track, listener: () => void) => () => void;
  const spy = vi.spyOn(Track.prototype, "watch").mockImplementation(function (this: Track, listener) {
    return watch.call(this, () => {
      wakes.set(this, (wakes.get(this) ?? 0) + 1);
      listener();
    });
  });
  return {
    wakes,
    restore: () => {
      spy.mockRestore();
    },
  };
}

/** Feeds `copy` `groups` groups of three frames each. */
function feed(copy: Track, groups: number): void {
  for (let g = 0; g < groups; g++) {
    const group = copy.createGroup(g);
    for (let f = 0; f < 3; f++) group.write(bytes("f"));
    group.finish();
  }
}

describe("a shared track's copy", () => {
  it("wakes no more than the resumed track's own readers would: the shared track hears only of its end", () => {
    const { origin, a, b } = setup();
    origin.announce("room/cam", a, [1]);
    origin.announce("room/cam", b, [2], 1);
    const counted = countWakes();
    try {
      // The control: a resumed track on its own, fed the same, is what the copy's frames must cost.
      const control = new Track("video", { clock: new ManualClock() });
      new ResumeTrack({ name: "control", clock: new ManualClock() }).takeover(control);
      const reader = new Drain(subscribe(origin).track);
      const copy = lastCopy(a).track;
      feed(control, 10);
      feed(copy, 10);
      reader.pump();
      expect(counted.wakes.get(control)).toBeGreaterThan(0);
      expect(counted.wakes.get(copy)).toBe(counted.wakes.get(control));
      // The end still reaches it: the dead copy's route fails over.
      copy.drop();
      expect(lastCopy(b).boundary).toEqual({ group: 10, frame: 0 });
    } finally {
      counted.restore();
    }
  });
});
