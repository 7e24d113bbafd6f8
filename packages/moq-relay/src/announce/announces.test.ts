import { LITE_05 } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { Origin } from "../origin/origin.js";
import { lite05Peer } from "../testing/lite05-peer.test-helpers.js";
import type { TestPeer } from "../testing/test-peer.test-helpers.js";
import { testOrigin } from "../testing/test-peer.test-helpers.js";

/** A lite-05 publisher whose announce stream starts with ANNOUNCE_OK carrying `hop`. */
function publisher(origin: Origin, hop: number): { peer: TestPeer; announce: (status: "active" | "ended" | "restart", suffix: string, hops: number[]) => void } {
  const peer = lite05Peer(origin, { id: 1 });
  const [stream] = peer.opened(true);
  if (stream === undefined) throw new Error("no announce stream");
  peer.write(stream, peer.writer.encode({ type: "announce_ok", hopId: hop, activeCount: 0 }));
  return {
    peer,
    announce: (status, suffix, hops) => {
      peer.write(stream, peer.writer.encode({ type: "announce", status, suffix, hops }));
    },
  };
}

describe("Announces on lite-05", () => {
  it("answers with ANNOUNCE_OK counting the initial set, then the set without the relay's own hop", () => {
    const origin = testOrigin();
    publisher(origin, 7).announce("active", "room/a", [3]);
    const watcher = lite05Peer(origin, { id: 2, permissions: { publish: [], subscribe: [""] } });
    const id = watcher.open([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "room", excludeHop: 0 }]);
    expect(watcher.decode(id, { role: "opened", kind: "announce", version: LITE_05 })).toEqual([
      { type: "announce_ok", hopId: 4242, activeCount: 1 },
      { type: "announce", status: "active", suffix: "a", hops: [3, 7] },
    ]);
  });

  it("routes a peer's announce with the peer's ANNOUNCE_OK hop as its last hop", () => {
    const origin = testOrigin();
    publisher(origin, 7).announce("active", "cam", [3]);
    expect(origin.routes("cam").map((r) => r.hops)).toEqual([[3, 7]]);
  });

  it("discards an announce whose hops already name this relay", () => {
    const origin = testOrigin();
    publisher(origin, 7).announce("active", "loop", [4242]);
    expect(origin.broadcasts).toBe(0);
  });

  it("replaces the route's hops on a restart", () => {
    const origin = testOrigin();
    const pub = publisher(origin, 7);
    pub.announce("active", "cam", [3]);
    pub.announce("restart", "cam", [5]);
    expect(origin.routes("cam").map((r) => r.hops)).toEqual([[5, 7]]);
  });

  it("withdraws a broadcast the peer ends", () => {
    const origin = testOrigin();
    const pub = publisher(origin, 7);
    pub.announce("active", "cam", []);
    pub.announce("ended", "cam", []);
    expect(origin.broadcasts).toBe(0);
  });
});
