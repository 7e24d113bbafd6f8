import { LITE_04 } from "@handoff/moq-resume/lite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lastCopy } from "../origin/test-source.test-helpers.js";
import { RelayCode } from "../rules/relay-code.js";
import { frameBytes, Harness, subscribeMsg } from "../testing/harness.test-helpers.js";
import { serving, subscribeTrack, finishedGroup, outbound, update } from "../testing/serving.test-helpers.js";

describe("Serving a SUBSCRIBE", () => {
  it("accepts it with a SUBSCRIBE_OK echoing the request and counts the subscription", () => {
    const { h } = serving({ priority: 3, startGroup: 2, endGroup: 9 });
    expect(h.io.messages(0, { role: "opened", kind: "subscribe", version: LITE_04 })).toEqual([
      { type: "subscribe_ok", priority: 3, ordered: false, maxLatency: 0, startGroup: 2, endGroup: 9 },
    ]);
    expect([h.serving.subscriptions, h.stats.subscriptions]).toEqual([1, 1]);
  });

  it("refuses a broadcast outside the grant with unauthorized, both ways, and asks the origin nothing", () => {
    const h = new Harness({ permissions: { publish: [], subscribe: ["room"] } });
    const pub = h.publisher("cam");
    h.serve(0, subscribeMsg(7, "cam"));
    expect(h.io.stream(0).resets).toEqual([RelayCode.Unauthorized]);
    expect(h.io.stream(0).stops).toEqual([RelayCode.Unauthorized]);
    expect(pub.asked).toEqual([]);
    expect(h.handlers.get(0)?.kind).toBe("ignore");
  });

  it("refuses a subscription past maxSubscriptions with too-many", () => {
    const h = new Harness({ limits: { maxSubscriptions: 1 } });
    h.publisher("cam");
    h.serve(0, subscribeMsg(1, "cam"));
    h.serve(4, subscribeMsg(2, "cam"));
    expect(h.io.stream(0).resets).toEqual([]);
    expect(h.io.stream(4).resets).toEqual([RelayCode.TooMany]);
    expect(h.serving.subscriptions).toBe(1);
  });

  it("refuses a broadcast nobody announced with not-found", () => {
    const h = new Harness();
    h.serve(0, subscribeMsg(1, "nothing"));
    expect(h.io.stream(0).resets).toEqual([RelayCode.NotFound]);
    expect(h.serving.subscriptions).toBe(0);
  });

  it("resolves the broadcast under the session's root", () => {
    const h = new Harness({ root: "room" });
    const pub = h.publisher("room/cam");
    h.serve(0, subscribeMsg(1, "cam"));
    expect(pub.asked).toEqual(["room/cam:video"]);
    expect(h.io.stream(0).resets).toEqual([]);
  });

  it("sends each group on its own uni stream named by the subscriber's id, frames in order, then FIN", () => {
    const { h, copy } = serving({ startGroup: 0 });
    finishedGroup(copy, 0, 1, 2);
    finishedGroup(copy, 1, 3);
    expect(h.groupsSent()).toEqual([
      { subscribe: 7, sequence: 0 },
      { subscribe: 7, sequence: 1 },
    ]);
    const [first, second] = h.io.opened(false);
    expect(frameBytes(h.groupMessages(first ?? -1))).toEqual([1, 2]);
    expect(frameBytes(h.groupMessages(second ?? -1))).toEqual([3]);
    expect(h.io.stream(second ?? -1).fin).toBe(true);
    expect(h.serving.outboundGroups).toBe(0);
  });

  it("registers an opened group stream as ours and forgets it once it is done", () => {
    const { h, copy } = serving({ startGroup: 0 });
    const group = copy.createGroup(0);
    const [id] = h.io.opened(false);
    expect(h.handlers.get(id ?? -1)?.kind).toBe("group-out");
    group.finish();
    expect(h.handlers.has(id ?? -1)).toBe(false);
  });
});

describe("Serving: scheduling", () => {
  it("opens waiting groups by priority, then oldest sequence first, as streams free up", () => {
    const h = new Harness();
    h.publisher("cam");
    h.io.uniLeft = 0;
    const low = subscribeTrack(h, 0, 1, "low", 1);
    const high = subscribeTrack(h, 4, 2, "high", 9);
    finishedGroup(low, 0, 0);
    finishedGroup(low, 1, 0);
    finishedGroup(high, 5, 0);
    finishedGroup(high, 3, 0);
    expect(h.io.opened(false)).toEqual([]);
    h.io.uniLeft = Number.POSITIVE_INFINITY;
    h.serving.streamsAvailable();
    h.serving.flush();
    expect(h.groupsSent()).toEqual([
      { subscribe: 2, sequence: 3 },
      { subscribe: 2, sequence: 5 },
      { subscribe: 1, sequence: 0 },
      { subscribe: 1, sequence: 1 },
    ]);
  });

  it("opens the newest waiting group first for a subscription that is not ordered", () => {
    const h = new Harness();
    h.publisher("cam");
    h.io.uniLeft = 0;
    const copy = subscribeTrack(h, 0, 1, "live", 0, false);
    for (const sequence of [0, 1, 2]) finishedGroup(copy, sequence, 0);
    h.io.uniLeft = Number.POSITIVE_INFINITY;
    h.serving.streamsAvailable();
    h.serving.flush();
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([2, 1, 0]);
  });

  it("opens any set of waiting groups in priority order, each subscription oldest first when ordered, else newest first", () => {
    const track = fc.record({
      priority: fc.integer({ min: 0, max: 255 }),
      ordered: fc.boolean(),
      sequences: fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(track, { minLength: 1, maxLength: 4 }), (tracks) => {
        const h = new Harness();
        h.publisher("cam");
        h.io.uniLeft = 0;
        const copies = tracks.map((t, i) => subscribeTrack(h, i * 4, i, `t${String(i)}`, t.priority, t.ordered));
        tracks.forEach((t, i) => {
          for (const sequence of t.sequences) copies[i]?.createGroup(sequence).finish();
        });
        h.io.uniLeft = Number.POSITIVE_INFINITY;
        h.serving.streamsAvailable();
        h.serving.flush();
        const sent = h.groupsSent();
        expect(sent).toHaveLength(tracks.reduce((n, t) => n + t.sequences.length, 0));
        const priorities = sent.map((g) => tracks[g.subscribe]?.priority ?? -1);
        expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
        tracks.forEach((t, i) => {
          const sorted = [...t.sequences].sort((a, b) => a - b);
          expect(sent.filter((g) => g.subscribe === i).map((g) => g.sequence)).toEqual(t.ordered ? sorted : sorted.reverse());
        });
      }),
      { numRuns: 200 },
    );
  });

  it("orders queued groups by the priority of a later SUBSCRIBE_UPDATE", () => {
    const h = new Harness();
    h.publisher("cam");
    h.io.uniLeft = 0;
    const a = subscribeTrack(h, 0, 1, "a", 1);
    const b = subscribeTrack(h, 4, 2, "b", 5);
    finishedGroup(a, 0, 0);
    finishedGroup(b, 0, 0);
    h.served(0).update(update({ priority: 9, startGroup: 0 }));
    h.io.uniLeft = Number.POSITIVE_INFINITY;
    h.serving.streamsAvailable();
    h.serving.flush();
    expect(h.groupsSent().map((g) => g.subscribe)).toEqual([1, 2]);
  });

  it("past maxOutboundGroups skips the oldest group of the lowest priority, reset with skipped, and counts it", () => {
    const h = new Harness({ limits: { maxOutboundGroups: 2 } });
    h.publisher("cam");
    const high = subscribeTrack(h, 0, 1, "high", 9);
    const low = subscribeTrack(h, 4, 2, "low", 1);
    high.createGroup(0);
    low.createGroup(4);
    low.createGroup(5);
    const streams = h.io.opened(false);
    expect(h.groupsSent()).toEqual([
      { subscribe: 1, sequence: 0 },
      { subscribe: 2, sequence: 4 },
      { subscribe: 2, sequence: 5 },
    ]);
    expect(streams.map((id) => h.io.stream(id).resets)).toEqual([[], [RelayCode.Skipped], []]);
    expect(h.stats.skips).toBe(1);
    expect(h.serving.outboundGroups).toBe(2);
  });

  it("drops a group skipped before it had a stream with SUBSCRIBE_DROP, resetting nothing", () => {
    const h = new Harness({ limits: { maxOutboundGroups: 1 } });
    h.publisher("cam");
    h.io.uniLeft = 0;
    const copy = subscribeTrack(h, 0, 1, "video", 0);
    finishedGroup(copy, 0, 0);
    finishedGroup(copy, 1, 1);
    expect(h.io.log.filter((c) => c.op === "reset")).toEqual([]);
    expect(h.io.messages(0, { role: "opened", kind: "subscribe", version: LITE_04 }).slice(1)).toEqual([
      { type: "subscribe_drop", start: 0, end: 0, error: RelayCode.Skipped },
    ]);
    h.io.uniLeft = Number.POSITIVE_INFINITY;
    h.serving.streamsAvailable();
    h.serving.flush();
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([1]);
  });

  it("gives the slot of a group the peer stopped to the next queued group", () => {
    const h = new Harness();
    h.publisher("cam");
    h.io.uniLeft = 1;
    const copy = subscribeTrack(h, 0, 1, "video", 0);
    copy.createGroup(0);
    finishedGroup(copy, 1, 1);
    const [first] = h.io.opened(false);
    if (first === undefined) throw new Error("no group stream");
    h.io.uniLeft = 1;
    // The peer's stop frees a stream: it raises the limit (streams-available), then the stop lands.
    h.serving.streamsAvailable();
    h.serving.abandon(outbound(h, first), RelayCode.Cancel);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0, 1]);
    expect(h.handlers.has(first)).toBe(false);
    expect(h.serving.outboundGroups).toBe(0);
  });

  it("a group stream the peer stops no longer keeps the copies its read needed once takeovers move them out", () => {
    const h = new Harness();
    const a = h.publisher("cam", 10);
    const b = h.publisher("cam", 20);
    h.serve(0, subscribeMsg(7, "cam", { startGroup: 0 }));
    const resume = h.origin.cachedTrack("cam", "video");
    const first = h.origin.upstreamCopy("cam", "video");
    if (resume === undefined || first === undefined) throw new Error("no shared track");
    const group = first.createGroup(0);
    group.write(Uint8Array.of(1));
    const [stream] = h.io.opened(false);
    if (stream === undefined) throw new Error("no group stream");
    h.serving.abandon(outbound(h, stream), RelayCode.Cancel);
    // Frames the stopped stream will never send, then three failovers (each new copy serves one
    // group): the first copy, which alone holds them, is folded out of the segment list.
    group.write(Uint8Array.of(2));
    for (let i = 1; i <= 3; i++) {
      h.origin.upstreamCopy("cam", "video")?.drop();
      h.origin.upstreamCopy("cam", "video")?.createGroup(i).finish();
    }
    expect(a.copies.length + b.copies.length).toBe(4);
    expect(resume.retained).toBe(0);
  });

  it("counts the bytes held in group streams the framing has no room for", () => {
    const { h, copy } = serving({ startGroup: 0 });
    const group = copy.createGroup(0);
    h.io.credit = 0;
    group.write(new Uint8Array(100));
    expect(h.serving.pendingBytes).toBeGreaterThan(100);
    h.io.credit = Number.POSITIVE_INFINITY;
    const [stream] = h.io.opened(false);
    h.serving.writable(outbound(h, stream ?? -1));
    h.serving.flush();
    expect(h.serving.pendingBytes).toBe(0);
  });

  it("writes nothing once the session is closed", () => {
    const { h, copy } = serving({ startGroup: 0 });
    h.closed = true;
    finishedGroup(copy, 0, 1);
    expect(h.io.opened(false)).toEqual([]);
  });
});

describe("Serving: the end of a subscription", () => {
  it("sends exactly the groups from the start group to the end group, then FINs the subscribe stream", () => {
    const { h, copy } = serving({ startGroup: 1, endGroup: 2 });
    // All four exist before any is complete: the copy is let go once the subscription ends.
    const groups = [0, 1, 2, 3].map((g) => copy.createGroup(g));
    for (const group of groups) group.finish();
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([1, 2]);
    expect(h.io.stream(0).fin).toBe(true);
    expect([h.serving.subscriptions, h.stats.subscriptions]).toEqual([0, 0]);
  });

  it("sends the groups parked above the end once a SUBSCRIBE_UPDATE moves the end up", () => {
    const { h, copy } = serving({ startGroup: 0, endGroup: 1 });
    finishedGroup(copy, 0, 0);
    finishedGroup(copy, 2, 2);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0]);
    h.served(0).update(update({ startGroup: 0, endGroup: 3 }));
    finishedGroup(copy, 3, 3);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0, 2, 3]);
    // Group 1 is still owed (arrival order: it may come late), so no FIN yet.
    expect(h.io.stream(0).fin).toBe(false);
    finishedGroup(copy, 1, 1);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0, 2, 3, 1]);
    expect(h.io.stream(0).fin).toBe(true);
  });

  it("tells the peer with SUBSCRIBE_DROP when a group is gone before it could be sent, and counts it", () => {
    const { h, copy } = serving({ startGroup: 0, endGroup: 0 });
    // Group 1 waits above the end, then is aborted upstream before the end is raised.
    copy.createGroup(1).abort();
    h.served(0).update(update({ startGroup: 0, endGroup: 1 }));
    expect(h.io.messages(0, { role: "opened", kind: "subscribe", version: LITE_04 }).slice(1)).toEqual([
      { type: "subscribe_drop", start: 1, end: 1, error: RelayCode.Lost },
    ]);
    expect(h.stats.drops).toBe(1);
    expect(h.io.stream(0).fin).toBe(false);
    // Once group 0 is sent the range is accounted for: the stream ends.
    finishedGroup(copy, 0, 0);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0]);
    expect(h.io.stream(0).fin).toBe(true);
  });

  it("sends a lower group that arrives after the end group before it FINs", () => {
    const { h, copy } = serving({ startGroup: 0, endGroup: 2 });
    finishedGroup(copy, 0, 0);
    finishedGroup(copy, 2, 2);
    expect(h.io.stream(0).fin).toBe(false);
    finishedGroup(copy, 1, 1);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0, 2, 1]);
    expect(h.io.stream(0).fin).toBe(true);
  });

  it("FINs at once when a SUBSCRIBE_UPDATE lowers the end to a group already sent", () => {
    const { h, copy } = serving({ startGroup: 0, endGroup: 9 });
    finishedGroup(copy, 0, 0);
    finishedGroup(copy, 1, 1);
    h.served(0).update(update({ startGroup: 0, endGroup: 1 }));
    expect(h.io.stream(0).fin).toBe(true);
  });

  it("stops at the lower end of a SUBSCRIBE_UPDATE", () => {
    const { h, copy } = serving({ startGroup: 0, endGroup: 5 });
    finishedGroup(copy, 0, 0);
    h.served(0).update(update({ startGroup: 0, endGroup: 1 }));
    const one = copy.createGroup(1);
    copy.createGroup(2).finish();
    one.finish();
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0, 1]);
    expect(h.io.stream(0).fin).toBe(true);
  });

  it("FINs the subscribe stream only after every owed group is sent", () => {
    const { h, copy } = serving({ startGroup: 0, endGroup: 1 });
    h.io.uniLeft = 1;
    const first = copy.createGroup(0);
    finishedGroup(copy, 1, 1);
    // Both groups are handed out; the first is still open and the second waits for a stream.
    expect(h.served(0).ended).toBe(true);
    expect(h.io.stream(0).fin).toBe(false);
    first.finish();
    expect(h.io.stream(0).fin).toBe(false);
    h.io.uniLeft = 1;
    h.serving.streamsAvailable();
    h.serving.flush();
    const [g0, g1] = h.io.opened(false);
    const finOfSubscribe = h.io.finAt(0);
    expect(finOfSubscribe).toBeGreaterThan(h.io.finAt(g0 ?? -1));
    expect(finOfSubscribe).toBeGreaterThan(h.io.finAt(g1 ?? -1));
    expect(h.io.finAt(g1 ?? -1)).toBeGreaterThanOrEqual(0);
  });

  it("FINs the subscribe stream when the track finishes and its groups are sent", () => {
    const { h, copy } = serving({ startGroup: 0 });
    const group = copy.createGroup(0);
    copy.finish();
    expect(h.io.stream(0).fin).toBe(false);
    group.finish();
    expect(h.io.stream(0).fin).toBe(true);
    expect(h.serving.subscriptions).toBe(0);
  });

  it("resets the subscribe stream with the upstream's code when the track fails", () => {
    const { h, copy } = serving({ startGroup: 0 });
    copy.abort(404);
    expect(h.io.stream(0).resets).toEqual([404]);
    expect(h.serving.subscriptions).toBe(0);
  });

  it("ending with a code resets the subscribe stream, cancels its open groups and releases the origin's copy", () => {
    const { h, pub, copy } = serving({ startGroup: 0 });
    copy.createGroup(0).write(Uint8Array.of(1));
    const [group] = h.io.opened(false);
    h.serving.end(h.served(0), RelayCode.NotFound);
    expect(h.io.stream(0).resets).toEqual([RelayCode.NotFound]);
    expect(h.io.stream(0).stops).toEqual([RelayCode.NotFound]);
    expect(h.io.stream(group ?? -1).resets).toEqual([RelayCode.Cancel]);
    expect(lastCopy(pub).cancelled).toBe(true);
    expect([h.serving.subscriptions, h.serving.outboundGroups, h.stats.subscriptions]).toEqual([0, 0, 0]);
  });

  it("ending without a code FINs the subscribe stream", () => {
    const { h } = serving();
    h.serving.end(h.served(0), undefined);
    expect(h.io.stream(0).fin).toBe(true);
    expect(h.io.stream(0).resets).toEqual([]);
    expect(h.handlers.has(0)).toBe(false);
  });

  it("teardown closes every subscription without writing anything and releases the origin's copy", () => {
    const { h, pub, copy } = serving({ startGroup: 0 });
    copy.createGroup(0);
    const calls = h.io.log.length;
    h.serving.teardown();
    expect(h.io.log.length).toBe(calls);
    expect(lastCopy(pub).cancelled).toBe(true);
    expect([h.serving.subscriptions, h.serving.outboundGroups, h.stats.subscriptions]).toEqual([0, 0, 0]);
  });
});
