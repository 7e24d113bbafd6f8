// What a session's decoders hold of a publisher's data, counted against the relay's byte budget.
import { FrameEncoder, LITE_04, LiteStreamWriter } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { ByteBudget } from "../origin/byte-budget.js";
import { RelayCode } from "../rules/relay-code.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

function scene() {
  const origin = testOrigin();
  const budget = new ByteBudget({ maxTrackBytes: 1 << 20, maxRelayBytes: 1 << 20 }, { evicted: () => undefined, overflowed: () => undefined }, (fn) => {
    fn();
  });
  const publisher = new TestPeer(origin, { id: 1, budget });
  const [announce] = publisher.opened(true);
  if (announce === undefined) throw new Error("no announce stream");
  publisher.write(announce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
  const subscriber = new TestPeer(origin, { id: 2 });
  subscriber.open([
    { type: "stream_header", kind: "subscribe" },
    { type: "subscribe", id: 1, broadcast: "cam", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
  ]);
  const upstream = publisher.opened(true)[1];
  if (upstream === undefined) throw new Error("no upstream subscription");
  const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
  const subscribeId = request?.type === "subscribe" ? request.id : -1;
  /** Opens a group stream and sends its header plus the first `sent` bytes of a 1000-byte frame. */
  const partialGroup = (sequence: number, sent: number) => {
    const r = publisher.framing.openStream(false);
    if (!r.ok) throw new Error("no uni stream");
    const head = new LiteStreamWriter(LITE_04).encodeAll([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: subscribeId, sequence },
    ]);
    const frame = new FrameEncoder(LITE_04).header(1000);
    publisher.write(r.streamId, Uint8Array.from([...head, ...frame, ...new Uint8Array(sent)]));
    return { id: r.streamId, frameHeader: frame.length };
  };
  return { budget, publisher, partialGroup };
}

describe("partial data of a publisher", () => {
  it("counts a frame still arriving against the budget, and moves it to the cached bytes once whole", () => {
    const { budget, publisher, partialGroup } = scene();
    const g = partialGroup(0, 400);
    expect(budget.inboundBytes).toBe(g.frameHeader + 400);
    publisher.write(g.id, new Uint8Array(600), true);
    expect([budget.inboundBytes, budget.cachedBytes]).toEqual([0, 1000]);
  });

  it("stops counting a stream the publisher reset, and everything of a session that closed", () => {
    const { budget, publisher, partialGroup } = scene();
    const a = partialGroup(0, 100);
    partialGroup(1, 200);
    publisher.framing.reset(a.id, 0);
    publisher.pump();
    expect(budget.inboundBytes).toBe(a.frameHeader + 200);
    publisher.session.close(RelayCode.Cancel, "bye");
    expect(budget.inboundBytes).toBe(0);
  });
});
