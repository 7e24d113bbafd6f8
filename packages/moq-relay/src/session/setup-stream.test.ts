import { LITE_05, LiteErrorCode, stripPathPrefix } from "@handoff/moq-resume/lite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ALLOW_ALL } from "../rules/permissions.js";
import { MAX_BYTES_BEFORE_SETUP } from "./dispatch.js";
import { clientSetup, finished, lite05Peer, sendSetup, uniMessages } from "../testing/lite05-peer.test-helpers.js";
import { RelayCode } from "../rules/relay-code.js";
import { judgeSetup } from "./setup-stream.js";
import { testOrigin } from "../testing/test-peer.test-helpers.js";

const SUBSCRIBE_ONLY = { publish: [], subscribe: [""] };

describe("judgeSetup", () => {
  it("keeps the root when the SETUP has no Path", () => {
    expect(judgeSetup(clientSetup(), "app", ALLOW_ALL)).toEqual({ ok: true, root: "app", role: "both" });
  });

  it("narrows the root under the Path and drops its query", () => {
    expect(judgeSetup(clientSetup({ path: "/room/1?jwt=abc" }), "app", ALLOW_ALL)).toEqual({ ok: true, root: "app/room/1", role: "both" });
  });

  it("refuses a publisher role on a subscribe-only grant", () => {
    expect(judgeSetup(clientSetup({ role: "publisher" }), "", SUBSCRIBE_ONLY)).toMatchObject({ ok: false, code: RelayCode.Unauthorized });
  });

  it("refuses a subscriber role on a publish-only grant", () => {
    expect(judgeSetup(clientSetup({ role: "subscriber" }), "", { publish: [""], subscribe: [] })).toMatchObject({ ok: false, code: RelayCode.Unauthorized });
  });

  it("refuses a Path that leaves nothing the grant allows", () => {
    expect(judgeSetup(clientSetup({ path: "other" }), "", { publish: ["room"], subscribe: ["room"] })).toMatchObject({ ok: false });
  });

  it("never widens the root, whatever the Path", () => {
    const part = fc.constantFrom("a", "b", "..", ".", "", "room");
    const path = fc.array(part, { maxLength: 5 }).map((parts) => parts.join("/"));
    fc.assert(
      fc.property(path, path, fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), (root, asked, query) => {
        const verdict = judgeSetup(clientSetup({ path: query === undefined ? asked : `${asked}?${query}` }), root, ALLOW_ALL);
        expect(verdict.ok && stripPathPrefix(root, verdict.root) !== undefined).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("accepts a Path inside a narrower grant", () => {
    expect(judgeSetup(clientSetup({ path: "room/a" }), "", { publish: [], subscribe: ["room"] })).toMatchObject({ ok: true, root: "room/a" });
  });
});

describe("lite-05 SETUP exchange", () => {
  it("sends the relay's SETUP on a uni stream, then FIN, once the transport is up", () => {
    const peer = lite05Peer(testOrigin(), { setup: null });
    const [id] = peer.opened(false);
    if (id === undefined) throw new Error("no setup stream");
    expect(uniMessages(peer, id)).toEqual([{ type: "stream_header", kind: "setup" }, clientSetup()]);
    expect(finished(peer, id)).toBe(true);
  });

  it("asks for announces only once the peer's SETUP is read", () => {
    const peer = lite05Peer(testOrigin(), { setup: null });
    expect(peer.opened(true)).toEqual([]);
    sendSetup(peer, clientSetup());
    expect(peer.opened(true)).toHaveLength(1);
  });

  it("does not ask a subscriber-only peer for announces", () => {
    const peer = lite05Peer(testOrigin(), { setup: clientSetup({ role: "subscriber" }) });
    expect(peer.session.closed).toBe(false);
    expect(peer.opened(true)).toEqual([]);
  });

  it("closes the session when the peer claims a role its grant cannot have", () => {
    const peer = lite05Peer(testOrigin(), { permissions: SUBSCRIBE_ONLY, setup: clientSetup({ role: "publisher" }) });
    expect(peer.closedWith?.code).toBe(RelayCode.Unauthorized);
  });

  it("closes the session on a second SETUP stream", () => {
    const peer = lite05Peer(testOrigin());
    sendSetup(peer, clientSetup());
    expect(peer.closedWith?.code).toBe(LiteErrorCode.ProtocolViolation);
  });

  it("holds a request sent before the SETUP and answers it after", () => {
    const peer = lite05Peer(testOrigin(), { setup: null });
    const id = peer.open([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "", excludeHop: 0 }]);
    expect(peer.data.get(id)).toBeUndefined();
    sendSetup(peer, clientSetup());
    expect(peer.decode(id, { role: "opened", kind: "announce", version: LITE_05 })).toEqual([{ type: "announce_ok", hopId: 4242, activeCount: 0 }]);
  });

  it("closes a session that sends more than it may before its SETUP", () => {
    const peer = lite05Peer(testOrigin(), { setup: null });
    const id = peer.open([{ type: "stream_header", kind: "probe" }]);
    for (let sent = 0; sent <= MAX_BYTES_BEFORE_SETUP && peer.closedWith === undefined; sent += 4096) peer.write(id, new Uint8Array(4096));
    expect(peer.closedWith?.code).toBe(RelayCode.TooMany);
  });

  it("resolves the peer's paths under the SETUP Path", () => {
    const origin = testOrigin();
    const publisher = lite05Peer(origin, { id: 1 });
    const [announce] = publisher.opened(true);
    if (announce === undefined) throw new Error("no announce stream");
    publisher.write(announce, publisher.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
    expect(origin.routes("cam")).toHaveLength(1);
    const narrowed = lite05Peer(origin, { id: 2, setup: clientSetup({ path: "room", role: "publisher" }) });
    const [narrowedAnnounce] = narrowed.opened(true);
    if (narrowedAnnounce === undefined) throw new Error("no announce stream");
    narrowed.write(narrowedAnnounce, narrowed.writer.encodeAll([{ type: "announce_ok", hopId: 0, activeCount: 1 }, { type: "announce", status: "active", suffix: "cam", hops: [] }]));
    expect(origin.routes("room/cam")).toHaveLength(1);
  });
});
