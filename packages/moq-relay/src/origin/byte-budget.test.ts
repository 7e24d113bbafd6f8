import { ManualClock } from "@handoff/seqlog";
import { Track } from "@handoff/moq-resume";
import { describe, expect, it } from "vitest";
import { RelayCode } from "../rules/relay-code.js";
import { ByteBudget, type Budget, type BudgetHolder } from "./byte-budget.js";

/** A budget whose reports and deferred closes the test sees. */
function budget(maxTrackBytes: number, maxRelayBytes: number) {
  const evicted: { budget: Budget; groups: number }[] = [];
  const overflowed: { id: number; bytes: number }[] = [];
  const deferred: (() => void)[] = [];
  const b = new ByteBudget(
    { maxTrackBytes, maxRelayBytes },
    {
      evicted: (which, groups) => evicted.push({ budget: which, groups }),
      overflowed: (holder, bytes) => overflowed.push({ id: holder.id, bytes }),
    },
    (fn) => deferred.push(fn),
  );
  return { b, evicted, overflowed, deferred };
}

/** Writes a group of `bytes` payload bytes into `track` as a session would, telling the budget. */
function group(b: ByteBudget, track: Track, sequence: number, bytes: number) {
  const g = track.createGroup(sequence);
  b.created(track, g);
  g.write(new Uint8Array(bytes));
  b.changed(track);
  return g;
}

function holder(id: number): BudgetHolder & { closes: number[] } {
  const closes: number[] = [];
  return {
    id,
    closes,
    close: (code) => {
      closes.push(code);
    },
  };
}

describe("ByteBudget", () => {
  it("evicts a copy's oldest groups past maxTrackBytes, and its readers learn they are lost", () => {
    const { b, evicted } = budget(250, 10_000);
    const track = new Track("t", { clock: new ManualClock() });
    const reader = track.subscribe({ start: 0 });
    const groups = [0, 1, 2, 3].map((s) => group(b, track, s, 100));
    expect(groups.map((g) => g.state)).toEqual(["evicted", "evicted", "open", "open"]);
    expect([track.bytes, b.cachedBytes]).toEqual([200, 200]);
    expect(evicted).toEqual([
      { budget: "track", groups: 1 },
      { budget: "track", groups: 1 },
    ]);
    expect(reader.recvGroup()).toMatchObject({ kind: "lost", sequence: 0 });
  });

  it("evicts the relay's oldest groups across copies, in creation order, past maxRelayBytes", () => {
    const { b, evicted } = budget(10_000, 300);
    const a = new Track("a", { clock: new ManualClock() });
    const c = new Track("c", { clock: new ManualClock() });
    const a0 = group(b, a, 0, 100);
    const c0 = group(b, c, 0, 100);
    const a1 = group(b, a, 1, 100);
    const c1 = group(b, c, 1, 100);
    expect([a0.state, c0.state, a1.state, c1.state]).toEqual(["evicted", "open", "open", "open"]);
    group(b, c, 2, 150);
    expect([c0.state, a1.state]).toEqual(["evicted", "evicted"]);
    expect(b.cachedBytes).toBe(250);
    expect(evicted.every((e) => e.budget === "relay")).toBe(true);
  });

  it("counts partial inbound bytes, and with nothing cached to evict closes the session holding most of them, once", () => {
    const { b, overflowed, deferred } = budget(10_000, 1000);
    const small = holder(1);
    const big = holder(2);
    b.inbound(small, 100);
    b.inbound(big, 800);
    expect(b.inboundBytes).toBe(900);
    b.inbound(small, 200);
    b.inbound(small, 10);
    expect(overflowed).toEqual([{ id: 2, bytes: 800 }]);
    for (const fn of deferred.splice(0)) fn();
    expect([big.closes, small.closes]).toEqual([[RelayCode.TooMany], []]);
    b.release(big);
    expect(b.inboundBytes).toBe(310);
  });

  it("makes room for partial data by evicting cached groups first", () => {
    const { b, overflowed } = budget(10_000, 300);
    const track = new Track("t", { clock: new ManualClock() });
    const g = group(b, track, 0, 200);
    b.inbound(holder(1), 200);
    expect([g.state, overflowed]).toEqual(["evicted", []]);
  });

  it("recounts bytes dropped outside a write at its sweep", () => {
    const { b } = budget(10_000, 10_000);
    const track = new Track("t", { clock: new ManualClock() });
    const g = group(b, track, 0, 100);
    g.abort();
    expect(b.cachedBytes).toBe(100);
    b.sweep();
    expect(b.cachedBytes).toBe(0);
  });
});
