// Work a session does inside another connection's event (fan-out of a publisher's frame, a
// deferred flush) is contained: an error there fails that session only.
import { LITE_04, LiteStreamWriter } from "@handoff/moq-resume/lite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RelayCode } from "../rules/relay-code.js";
import { Serving } from "../serve/serving.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

function subscribe(id: number) {
  return { type: "subscribe" as const, id, broadcast: "cam", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined };
}

/** A publisher of `cam`, a subscriber whose session will fail, and one that will not. */
function scene() {
  const origin = testOrigin();
  const publisher = new TestPeer(origin, { id: 1 });
  const [announce] = publisher.opened(true);
  if (announce === undefined) throw new Error("no announce stream");
  publisher.write(announce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
  const deferred: (() => void)[] = [];
  const faults: string[] = [];
  const victim = new TestPeer(origin, {
    id: 2,
    defer: (flush) => deferred.push(flush),
    fault: (where) => {
      faults.push(where);
      deferred.push(() => {
        victim.session.close(RelayCode.Internal, "internal error");
      });
    },
  });
  victim.open([{ type: "stream_header", kind: "subscribe" }, subscribe(7)]);
  const other = new TestPeer(origin, { id: 3 });
  other.open([{ type: "stream_header", kind: "subscribe" }, subscribe(8)]);
  const upstream = publisher.opened(true)[1];
  if (upstream === undefined) throw new Error("relay did not subscribe upstream");
  const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
  const upstreamId = request?.type === "subscribe" ? request.id : -1;
  const sendGroup = (sequence: number): void => {
    const group = publisher.framing.openStream(false);
    if (!group.ok) throw new Error("no uni stream");
    publisher.write(
      group.streamId,
      new LiteStreamWriter(LITE_04).encodeAll([
        { type: "stream_header", kind: "group" },
        { type: "group", subscribe: upstreamId, sequence },
        { type: "frame", payload: Uint8Array.of(sequence), timestamp: undefined },
      ]),
      true,
    );
  };
  const runDeferred = (): void => {
    for (const flush of deferred.splice(0)) flush();
  };
  runDeferred();
  return { publisher, victim, other, faults, sendGroup, runDeferred };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("contained work", () => {
  it("fails only the subscriber whose fan-out threw: the publisher and the other subscriber carry on", () => {
    const { publisher, victim, other, faults, sendGroup, runDeferred } = scene();
    const startGroup = Object.getOwnPropertyDescriptor(Serving.prototype, "startGroup")?.value as Serving["startGroup"];
    vi.spyOn(Serving.prototype, "startGroup").mockImplementation(function (this: Serving, ...args) {
      if (this.source === victim.session) throw new Error("a bug in this subscriber's fan-out");
      startGroup.apply(this, args);
    });
    expect(() => {
      sendGroup(0);
    }).not.toThrow();
    expect(faults).toEqual(["fan-out"]);
    expect(victim.session.faulted).toBe(true);
    expect(publisher.session.closed).toBe(false);
    expect(other.opened(false)).toHaveLength(1);
    // Closed later in the turn, outside the publisher's event.
    expect(victim.session.closed).toBe(false);
    runDeferred();
    expect(victim.closedWith?.code).toBe(RelayCode.Internal);
    sendGroup(1);
    expect(other.opened(false)).toHaveLength(2);
    expect(publisher.closedWith).toBeUndefined();
  });

  it("contains an error in a deferred flush to its session", () => {
    const { publisher, victim, faults, sendGroup, runDeferred } = scene();
    sendGroup(0);
    const flush = Object.getOwnPropertyDescriptor(Serving.prototype, "flush")?.value as Serving["flush"];
    let failing = true;
    vi.spyOn(Serving.prototype, "flush").mockImplementation(function (this: Serving) {
      if (failing) throw new Error("a bug in a deferred flush");
      flush.call(this);
    });
    expect(runDeferred).not.toThrow();
    failing = false;
    expect(faults).toEqual(["flush"]);
    runDeferred();
    expect(victim.closedWith?.code).toBe(RelayCode.Internal);
    expect(publisher.session.closed).toBe(false);
  });
});
