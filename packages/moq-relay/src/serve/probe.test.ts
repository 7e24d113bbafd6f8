import { LITE_04, LITE_05 } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { finished, lite05Peer } from "../testing/lite05-peer.test-helpers.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

describe("PROBE stream", () => {
  it("answers a lite-04 probe with an unknown bitrate and rtt and keeps the stream open", () => {
    const peer = new TestPeer(testOrigin(), { version: LITE_04 });
    const id = peer.open([{ type: "stream_header", kind: "probe" }]);
    expect(peer.decode(id, { role: "opened", kind: "probe", version: LITE_04 })).toEqual([{ type: "probe", bitrate: undefined, rtt: undefined }]);
    expect(finished(peer, id)).toBe(false);
    expect(peer.resets(id)).toEqual([]);
  });

  it("answers each probe the peer sends", () => {
    const peer = lite05Peer(testOrigin());
    const id = peer.open([{ type: "stream_header", kind: "probe" }, { type: "probe", bitrate: 1_000_000, rtt: undefined }]);
    expect(peer.decode(id, { role: "opened", kind: "probe", version: LITE_05 })).toHaveLength(2);
  });

  it("closes its side cleanly when the peer FINs", () => {
    const peer = lite05Peer(testOrigin());
    const id = peer.open([{ type: "stream_header", kind: "probe" }]);
    peer.write(id, new Uint8Array(0), true);
    expect(finished(peer, id)).toBe(true);
    expect(peer.resets(id)).toEqual([]);
  });

  it("never resets a probe stream carrying garbage", () => {
    const peer = new TestPeer(testOrigin(), { version: LITE_04 });
    const id = peer.open([{ type: "stream_header", kind: "probe" }]);
    peer.write(id, Uint8Array.of(0x05, 0xff));
    peer.write(id, new Uint8Array(0), true);
    expect(peer.resets(id)).toEqual([]);
    expect(peer.session.closed).toBe(false);
  });
});
