import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { GroupCache } from "./cache.js";
import { Group } from "./group.js";
import { Track } from "./track.js";

describe("GroupCache", () => {
  it("evicts the oldest arrival beyond the count bound", () => {
    const cache = new GroupCache({ maxGroups: 2 });
    const first = new Group(5);
    cache.insert(first);
    cache.insert(new Group(1));
    cache.insert(new Group(9));
    expect([first.state, cache.get(5), cache.size]).toEqual(["evicted", undefined, 2]);
  });

  it("evicts groups older than the age bound", () => {
    const cache = new GroupCache({ maxAgeMs: 100 });
    cache.insert(new Group(0, { createdAt: 0 }));
    cache.insert(new Group(1, { createdAt: 50 }));
    expect(cache.expire(120)).toBe(1);
    expect(cache.get(1)).toBeDefined();
  });

  it("evicts one group by its sequence number, leaving the others and the arrival order", () => {
    const track = new Track("t", { clock: new ManualClock() });
    const woken: number[] = [];
    track.watch(() => woken.push(track.cached));
    const [a, b, c] = [0, 1, 2].map((seq) => track.createGroup(seq));
    woken.length = 0;
    expect(track.evict(1)).toBe(b);
    expect(track.evict(1)).toBeUndefined();
    expect([b?.state, track.get(1), track.cached, woken]).toEqual(["evicted", undefined, 2, [2]]);
    expect([...track.groups()]).toEqual([a, c]);
    expect(track.evictOldest()).toBe(a);
    expect(track.evictOldest()).toBe(c);
  });

  it("keeps evicted entries in the arrival log for lagging cursors, within a bound", () => {
    const cache = new GroupCache({ maxGroups: 1 });
    for (let seq = 0; seq < 500; seq++) cache.insert(new Group(seq));
    expect(cache.arrival(cache.arrivalEnd - 2)?.item.lost).toBe(true);
    expect(cache.arrivalEnd - cache.arrivalStart).toBeLessThanOrEqual(1 + 64 + 32);
  });

  it("counts the payload bytes of the groups of its track and gives them back as groups go", () => {
    const track = new Track("t", { clock: new ManualClock(), maxGroups: 2 });
    const a = track.createGroup(0);
    a.write(new Uint8Array(10));
    a.write(new Uint8Array(5));
    const b = track.createGroup(1);
    b.write(new Uint8Array(7));
    expect([a.byteLength, track.bytes]).toEqual([15, 22]);
    b.abort();
    expect(track.bytes).toBe(15);
    // The count bound evicts group 0 when group 2 comes.
    track.createGroup(2);
    track.createGroup(3).write(new Uint8Array(3));
    expect(track.bytes).toBe(3);
  });

  it("wakes a reader once for a new group, also when the group evicts the oldest and expires aged ones", () => {
    const clock = new ManualClock();
    const track = new Track("t", { clock, maxGroups: 2, maxAgeMs: 1000 });
    const reader = track.subscribe({ start: 0 });
    let wakes = 0;
    reader.watch(() => (wakes += 1));
    const old = track.createGroup(0);
    clock.advance(2000);
    const full = track.createGroup(1);
    track.createGroup(2);
    wakes = 0;
    // Group 3 expires nothing more but evicts group 1 by count; group 4 then comes after both aged out.
    track.createGroup(3);
    expect([full.state, wakes]).toEqual(["evicted", 1]);
    clock.advance(2000);
    track.createGroup(4);
    expect([old.state, track.cached, wakes]).toEqual(["evicted", 1, 2]);
  });

  it("wakes a reader once for expiring or clearing several groups at once", () => {
    const clock = new ManualClock();
    const track = new Track("t", { clock, maxAgeMs: 1000 });
    const reader = track.subscribe({ start: 0 });
    let wakes = 0;
    reader.watch(() => (wakes += 1));
    track.createGroup(0);
    track.createGroup(1);
    track.createGroup(2);
    clock.advance(2000);
    wakes = 0;
    expect([track.expire(), wakes]).toEqual([3, 1]);
    expect([track.expire(), wakes]).toEqual([0, 1]);
    track.createGroup(3);
    track.createGroup(4);
    wakes = 0;
    track.clear();
    expect([track.cached, wakes]).toEqual([0, 1]);
  });

  it("evicts its oldest held group on demand, skipping groups already lost, and wakes the readers", () => {
    const track = new Track("t", { clock: new ManualClock() });
    const reader = track.subscribe({ start: 0 });
    let wakes = 0;
    reader.watch(() => (wakes += 1));
    const a = track.createGroup(0);
    a.write(new Uint8Array(4));
    const b = track.createGroup(1);
    b.write(new Uint8Array(4));
    a.abort();
    wakes = 0;
    expect(track.evictOldest()).toBe(b);
    expect([b.state, track.bytes, track.cached, wakes > 0]).toEqual(["evicted", 0, 0, true]);
    expect(track.evictOldest()).toBeUndefined();
  });
});
