import { LITE_06, LITE_06_WIP, type LiteMessage } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { lite05Peer } from "../testing/lite05-peer.test-helpers.js";
import { RelayCode } from "../rules/relay-code.js";
import { testOrigin, type TestPeer } from "../testing/test-peer.test-helpers.js";

/** The relay's announce stream to `peer` (the first bidi stream it opened). */
function announceStream(peer: TestPeer): number {
  const [id] = peer.opened(true);
  if (id === undefined) throw new Error("the relay did not ask for announces");
  return id;
}

describe.each([
  ["moq-lite-06-wip", LITE_06_WIP],
  ["moq-lite-06", LITE_06],
] as const)("lite-06 announces (%s)", (_name, version) => {
  it("asks without an exclude hop and declares its hop id in SETUP instead", () => {
    const peer = lite05Peer(testOrigin(), { version });
    expect(peer.decode(announceStream(peer), { role: "accepted-bidi", version })).toEqual([
      { type: "stream_header", kind: "announce" },
      { type: "announce_request", prefix: "", excludeHop: 0 },
    ]);
  });

  it("adds the link cost to the announced route cost, and follows END and UPDATE by announce id", () => {
    const origin = testOrigin();
    const peer = lite05Peer(origin, { version, cost: 2 });
    const id = announceStream(peer);
    const send = (...msgs: LiteMessage[]): void => {
      peer.write(id, peer.writer.encodeAll(msgs));
    };
    send(
      { type: "announce_ok", hopId: 77, activeCount: 2 },
      { type: "announce", status: "active", suffix: "a", hops: [5], cost: 3 },
      { type: "announce", status: "active", suffix: "b", hops: [], cost: 0 },
    );
    expect(origin.routes("a").map((r) => [r.hops, r.cost])).toEqual([[[5, 77], 5]]);
    expect(origin.routes("b").map((r) => [r.hops, r.cost])).toEqual([[[77], 2]]);
    // id 1 is "b": an UPDATE moves its route, an END withdraws it; "a" (id 0) stays.
    send({ type: "announce", status: "restart", suffix: "", hops: [8], id: 1, cost: 10 });
    expect(origin.routes("b").map((r) => [r.hops, r.cost])).toEqual([[[8, 77], 12]]);
    send({ type: "announce", status: "ended", suffix: "", hops: [], id: 1 });
    expect(origin.routes("b")).toEqual([]);
    expect(origin.routes("a")).toHaveLength(1);
  });

  it("resets the announce stream on an END naming an id never assigned", () => {
    const origin = testOrigin();
    const peer = lite05Peer(origin, { version });
    const id = announceStream(peer);
    peer.write(id, peer.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 0 }, { type: "announce", status: "active", suffix: "a", hops: [], cost: 0 }]));
    peer.write(id, peer.writer.encode({ type: "announce", status: "ended", suffix: "", hops: [], id: 4 }));
    expect(peer.resets(id)).toEqual([RelayCode.ProtocolViolation]);
    expect(origin.broadcasts).toBe(0);
  });

  it("serves START with the route cost, UPDATE when a cheaper route takes over, and END, by announce id", () => {
    const origin = testOrigin();
    const watcher = lite05Peer(origin, { id: 5, version, permissions: { publish: [], subscribe: [""] } });
    const stream = watcher.open([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "", excludeHop: 0 }]);
    const far = { id: 1, subscribeUpstream: () => undefined };
    const near = { id: 2, subscribeUpstream: () => undefined };
    origin.announce("x", far, [3], 0);
    origin.announce("cam", far, [9], 7);
    origin.announce("cam", near, [9, 10], 4);
    origin.unannounce("cam", far);
    origin.unannounce("cam", near);
    expect(watcher.decode(stream, { role: "opened", kind: "announce", version })).toEqual([
      { type: "announce_ok", hopId: 4242, activeCount: 0 },
      { type: "announce", status: "active", suffix: "x", hops: [3], cost: 0 },
      { type: "announce", status: "active", suffix: "cam", hops: [9], cost: 7 },
      { type: "announce", status: "restart", suffix: "", hops: [9, 10], id: 1, cost: 4 },
      { type: "announce", status: "ended", suffix: "", hops: [], id: 1 },
    ]);
  });
});
