import { LITE_04, LITE_05, type LiteMessage, LiteStreamReader, LiteStreamWriter, type LiteVersion } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { StreamId } from "@handoff/qmux";
import { MAX_BYTES_BEFORE_SETUP, StreamDispatch } from "./dispatch.js";
import { RelayCode } from "../rules/relay-code.js";
import { clientSetup } from "../testing/lite05-peer.test-helpers.js";
import { Harness, type HarnessOptions, subscribeMsg } from "../testing/harness.test-helpers.js";
import { SetupExchange } from "./setup-stream.js";

/** A dispatcher wired to a harness's modules, recording what it leaves to the session. */
function dispatcher(options: HarnessOptions = {}) {
  const h = new Harness(options);
  const goaways: string[] = [];
  const setupData: StreamId[] = [];
  const holder: { dispatch?: StreamDispatch } = {};
  const setup = new SetupExchange(h.ctx, "", () => holder.dispatch?.resume());
  const dispatch = new StreamDispatch(
    h.ctx,
    h.handlers,
    h.announces,
    h.serving,
    h.upstreams,
    {
      setupData: (id) => setupData.push(id),
      goaway: (uri) => goaways.push(uri),
    },
    setup,
    h.origin,
  );
  holder.dispatch = dispatch;
  const version: LiteVersion = h.version ?? LITE_04;
  const writer = new LiteStreamWriter(version);
  /** The peer opens stream `id` and writes `messages` on it. */
  const peerOpens = (id: StreamId, bidi: boolean, messages: readonly LiteMessage[], fin = false): void => {
    dispatch.opened(id, bidi, version);
    dispatch.data(id, writer.encodeAll(messages), fin);
  };
  return { h, dispatch, goaways, setupData, writer, version, peerOpens };
}

const SUBSCRIBE_HEADER: LiteMessage = { type: "stream_header", kind: "subscribe" };

describe("StreamDispatch: what a new stream is", () => {
  it("reads a bidi stream the peer opens as a control stream", () => {
    const { h, dispatch } = dispatcher();
    dispatch.opened(0, true, LITE_04);
    expect(h.handlers.get(0)?.kind).toBe("accepted");
  });

  it("reads a uni stream as a group stream before lite-05", () => {
    const { h, dispatch } = dispatcher();
    dispatch.opened(2, false, LITE_04);
    expect(h.handlers.get(2)?.kind).toBe("group-in");
  });

  it("waits for the first byte of a lite-05 uni stream to tell a SETUP from a group", () => {
    const { h, dispatch, writer } = dispatcher({ version: LITE_05 });
    dispatch.opened(2, false, LITE_05);
    dispatch.opened(6, false, LITE_05);
    expect(h.handlers.get(2)?.kind).toBe("uni-pending");
    dispatch.data(2, writer.encode({ type: "stream_header", kind: "group" }), false);
    dispatch.data(6, writer.encode({ type: "stream_header", kind: "setup" }), false);
    expect([h.handlers.get(2)?.kind, h.handlers.get(6)?.kind]).toEqual(["group-in", "setup-in"]);
  });
});

describe("StreamDispatch: streams it does not serve never close the session", () => {
  it("refuses a bidi stream of unknown type with the codec's code", () => {
    const { h, dispatch } = dispatcher();
    dispatch.opened(0, true, LITE_04);
    dispatch.data(0, Uint8Array.of(0x3f), false);
    expect(h.io.stream(0).resets).toEqual([5]);
    expect(h.io.stream(0).stops).toEqual([5]);
    expect(h.handlers.has(0)).toBe(false);
    expect(h.closes).toEqual([]);
  });

  it("stops a lite-05 uni stream of unknown type with the codec's code", () => {
    const { h, dispatch } = dispatcher({ version: LITE_05 });
    dispatch.opened(2, false, LITE_05);
    dispatch.data(2, Uint8Array.of(0x3f, 1, 2), false);
    expect(h.io.stream(2).stops).toHaveLength(1);
    expect(h.io.stream(2).stops[0]).toBeGreaterThan(0);
    expect(h.handlers.has(2)).toBe(false);
    expect(h.closes).toEqual([]);
  });

  it("stops an inbound group for a subscription it never made", () => {
    const { h, peerOpens } = dispatcher();
    peerOpens(2, false, [{ type: "stream_header", kind: "group" }, { type: "group", subscribe: 12, sequence: 0 }]);
    expect(h.io.stream(2).stops).toEqual([RelayCode.Cancel]);
    expect(h.closes).toEqual([]);
  });

  it("surfaces a GOAWAY and then reads the stream on without answering", () => {
    const { h, goaways, peerOpens } = dispatcher();
    peerOpens(0, true, [{ type: "stream_header", kind: "goaway" }, { type: "goaway", uri: "https://other/" }]);
    expect(goaways).toEqual(["https://other/"]);
    expect(h.handlers.get(0)?.kind).toBe("ignore");
    expect(h.io.log).toEqual([]);
    expect(h.closes).toEqual([]);
  });

  it("answers the peer's FIN on a stream it ignores with FIN", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    peerOpens(0, true, [{ type: "stream_header", kind: "goaway" }, { type: "goaway", uri: "" }]);
    dispatch.data(0, new Uint8Array(0), true);
    expect(h.io.stream(0).fin).toBe(true);
    expect(h.handlers.has(0)).toBe(false);
  });

  it("answers the peer's FIN on a stream that asked nothing with FIN", () => {
    const { h, dispatch } = dispatcher();
    dispatch.opened(0, true, LITE_04);
    dispatch.data(0, new Uint8Array(0), true);
    expect(h.io.stream(0).fin).toBe(true);
    expect(h.handlers.has(0)).toBe(false);
  });

  it("drops bytes on a stream it has no handler for", () => {
    const { h, dispatch } = dispatcher();
    dispatch.data(40, Uint8Array.of(1, 2, 3), true);
    dispatch.reset(40, 9, false);
    expect(h.io.log).toEqual([]);
    expect(h.closes).toEqual([]);
  });

  it("ignores bytes on its own GOAWAY stream", () => {
    const { h, dispatch } = dispatcher();
    h.handlers.set(1, { kind: "goaway-out" });
    dispatch.data(1, Uint8Array.of(0xff, 0xff), false);
    expect(h.io.log).toEqual([]);
    expect(h.handlers.get(1)?.kind).toBe("goaway-out");
  });

  it("refuses an accepted stream the peer resets, with the peer's code", () => {
    const { h, dispatch } = dispatcher();
    dispatch.opened(0, true, LITE_04);
    dispatch.reset(0, 77, false);
    expect(h.io.stream(0).resets).toEqual([77]);
    expect(h.handlers.has(0)).toBe(false);
    expect(h.closes).toEqual([]);
  });

  it("forgets a lite-05 uni stream the peer resets or FINs before its first byte", () => {
    const { h, dispatch } = dispatcher({ version: LITE_05 });
    dispatch.opened(2, false, LITE_05);
    dispatch.opened(6, false, LITE_05);
    dispatch.reset(2, 3, false);
    dispatch.data(6, new Uint8Array(0), true);
    expect([h.handlers.has(2), h.handlers.has(6)]).toEqual([false, false]);
    expect(h.closes).toEqual([]);
  });
});

describe("StreamDispatch: PROBE streams", () => {
  it("answers a PROBE stream with a report and never resets it, even when it turns malformed", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    peerOpens(0, true, [{ type: "stream_header", kind: "probe" }]);
    expect(h.handlers.get(0)?.kind).toBe("answered");
    expect(h.io.messages(0, { role: "opened", kind: "probe", version: LITE_04 })).toHaveLength(1);
    dispatch.data(0, Uint8Array.of(0x40), true);
    expect(h.io.stream(0).resets).toEqual([]);
    expect(h.io.stream(0).fin).toBe(true);
    expect(h.io.stream(0).stops).toHaveLength(1);
  });

  it("FINs a PROBE stream the peer resets instead of resetting it", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    peerOpens(0, true, [{ type: "stream_header", kind: "probe" }]);
    dispatch.reset(0, 3, false);
    expect(h.io.stream(0).resets).toEqual([]);
    expect(h.io.stream(0).fin).toBe(true);
  });
});

describe("StreamDispatch: served subscriptions", () => {
  it("serves a SUBSCRIBE and ends it with FIN both ways when the peer FINs", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    h.publisher("cam");
    peerOpens(0, true, [SUBSCRIBE_HEADER, subscribeMsg(7, "cam")]);
    expect(h.handlers.get(0)?.kind).toBe("subscribe-serve");
    expect(h.serving.subscriptions).toBe(1);
    dispatch.data(0, new Uint8Array(0), true);
    expect(h.serving.subscriptions).toBe(0);
    expect(h.io.stream(0).fin).toBe(true);
  });

  it("hands a SUBSCRIBE_UPDATE to the subscription on its stream", () => {
    const { h, dispatch, writer, peerOpens } = dispatcher();
    h.publisher("cam");
    peerOpens(0, true, [SUBSCRIBE_HEADER, subscribeMsg(7, "cam", { priority: 1 })]);
    dispatch.data(0, writer.encode({ type: "subscribe_update", priority: 9, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined }), false);
    expect(h.served(0).priority).toBe(9);
  });

  it("ends a subscription whose stream the peer resets, with the peer's code", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    h.publisher("cam");
    peerOpens(0, true, [SUBSCRIBE_HEADER, subscribeMsg(7, "cam")]);
    dispatch.reset(0, 33, false);
    expect(h.serving.subscriptions).toBe(0);
    expect(h.io.stream(0).resets).toEqual([33]);
  });

  it("ends a subscription whose stream turns malformed, with the codec's code", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    h.publisher("cam");
    peerOpens(0, true, [SUBSCRIBE_HEADER, subscribeMsg(7, "cam")]);
    // A SUBSCRIBE_UPDATE with an empty body.
    dispatch.data(0, Uint8Array.of(0), false);
    expect(h.serving.subscriptions).toBe(0);
    expect(h.io.stream(0).resets).toHaveLength(1);
    expect(h.closes).toEqual([]);
  });

  it("drops one of our group streams the peer stops and sends the others", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    const pub = h.publisher("cam");
    peerOpens(0, true, [SUBSCRIBE_HEADER, subscribeMsg(7, "cam", { startGroup: 0 })]);
    const copy = pub.copies[0]?.track;
    if (copy === undefined) throw new Error("no copy");
    h.io.uniLeft = 1;
    copy.createGroup(0);
    copy.createGroup(1);
    const [first] = h.io.opened(false);
    h.io.uniLeft = 1;
    h.serving.streamsAvailable();
    dispatch.reset(first ?? -1, 8, true);
    expect(h.handlers.has(first ?? -1)).toBe(false);
    expect(h.groupsSent().map((g) => g.sequence)).toEqual([0, 1]);
  });
});

describe("StreamDispatch: the relay's subscriptions on the peer", () => {
  it("routes the peer's FIN on our SUBSCRIBE stream to the subscription, which finishes its copy", () => {
    const { h, dispatch } = dispatcher();
    const up = h.subscribeUpstream("cam", "video", 0, () => undefined);
    const [stream] = h.io.opened(true);
    dispatch.data(stream ?? -1, new Uint8Array(0), true);
    expect(up?.track.terminal()).toEqual({ kind: "finished" });
  });

  it("aborts the copy of a subscription whose stream the peer resets", () => {
    const { h, dispatch } = dispatcher();
    const up = h.subscribeUpstream("cam", "video", 0, () => undefined);
    const [stream] = h.io.opened(true);
    dispatch.reset(stream ?? -1, 404, false);
    expect(up?.track.terminal()).toEqual({ kind: "aborted", reason: 404 });
    expect(h.upstreams.count).toBe(0);
  });

  it("aborts an inbound group the peer resets, and ignores a STOP_SENDING on it", () => {
    const { h, dispatch, peerOpens } = dispatcher();
    const up = h.subscribeUpstream("cam", "video", 0, () => undefined);
    peerOpens(2, false, [
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 0, sequence: 0 },
      { type: "frame", payload: Uint8Array.of(1), timestamp: undefined },
    ]);
    dispatch.reset(2, 6, true);
    expect(h.handlers.get(2)?.kind).toBe("group-in");
    expect(up?.track.group(0)?.lost).toBe(false);
    dispatch.reset(2, 6, false);
    expect(h.handlers.has(2)).toBe(false);
    expect(up?.track.group(0)?.lost).toBe(true);
  });

  it("withdraws the peer's announces when it resets our announce stream", () => {
    const { h, dispatch, writer } = dispatcher();
    dispatch.requestAnnounces();
    const [stream] = h.io.opened(true);
    dispatch.data(stream ?? -1, writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }), false);
    expect(h.origin.broadcasts).toBe(1);
    dispatch.reset(stream ?? -1, 2, false);
    expect(h.origin.broadcasts).toBe(0);
    expect(h.io.stream(stream ?? -1).resets).toEqual([2]);
  });
});

describe("StreamDispatch: session streams", () => {
  it("hands bytes on the lite-01/02 session stream to the session", () => {
    const { h, dispatch, setupData } = dispatcher();
    h.handlers.set(0, { kind: "setup", reader: new LiteStreamReader({ role: "setup-server" }) });
    dispatch.data(0, Uint8Array.of(1), false);
    expect(setupData).toEqual([0]);
  });

  it("closes the session when the peer resets the lite-01/02 session stream", () => {
    const { h, dispatch } = dispatcher();
    h.handlers.set(0, { kind: "setup", reader: new LiteStreamReader({ role: "setup-server" }) });
    dispatch.reset(0, 12, false);
    expect(h.closes.map((c) => c.code)).toEqual([12]);
  });

  it("ignores a STOP_SENDING on the peer's lite-05 SETUP stream but closes on its reset", () => {
    const { h, dispatch, writer } = dispatcher({ version: LITE_05 });
    dispatch.opened(2, false, LITE_05);
    dispatch.data(2, writer.encode({ type: "stream_header", kind: "setup" }), false);
    dispatch.reset(2, 4, true);
    expect(h.closes).toEqual([]);
    dispatch.reset(2, 4, false);
    expect(h.closes.map((c) => c.code)).toEqual([4]);
  });

  it("holds lite-05 requests unread until the peer's SETUP is accepted, then serves them", () => {
    const { h, dispatch, writer, peerOpens } = dispatcher({ version: LITE_05 });
    peerOpens(0, true, [SUBSCRIBE_HEADER, subscribeMsg(7, "nothing")]);
    expect(h.io.stream(0).resets).toEqual([]);
    dispatch.opened(2, false, LITE_05);
    dispatch.data(2, writer.encodeAll([{ type: "stream_header", kind: "setup" }, clientSetup()]), true);
    expect(h.io.stream(0).resets).toEqual([RelayCode.NotFound]);
  });

  it("closes the session when more than MAX_BYTES_BEFORE_SETUP of requests wait for a lite-05 SETUP", () => {
    const { h, dispatch } = dispatcher({ version: LITE_05 });
    dispatch.opened(0, true, LITE_05);
    dispatch.data(0, new Uint8Array(MAX_BYTES_BEFORE_SETUP), false);
    expect(h.closes).toEqual([]);
    dispatch.data(0, new Uint8Array(1), false);
    expect(h.closes.map((c) => c.code)).toEqual([RelayCode.TooMany]);
  });
});
