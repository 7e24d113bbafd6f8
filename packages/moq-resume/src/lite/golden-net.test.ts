// Golden vectors for lite-05 and moq-lite-06-wip: the bytes npm @moq/net 0.3.4 itself writes (its
// encoder classes driven onto its Writer over an in-memory WritableStream) must equal ours, for
// random messages. Its internals are not in the package's exports map, and its .d.ts files
// import without extensions, so the modules are loaded by file path and typed here.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { writtenBytes } from "./js-writer.test-helpers.js";
import { encodeMessage } from "./messages.js";
import { decodeStream } from "./stream-reader.js";
import { path } from "./arbitraries.test-helpers.js";
import { LITE_05, LITE_06, LITE_06_WIP, hasExcludeHop, liteVersionName } from "./version.js";

interface JsWriter {
  close(): void;
  readonly closed: Promise<void>;
  u53(v: number): Promise<void>;
}
type WriterCtor = new (stream: WritableStream<Uint8Array>) => JsWriter;
type Write = (w: JsWriter) => Promise<void>;
interface JsAnnounceModule {
  AnnounceRequest: new (prefix: string, excludeHop: bigint) => { encode: (w: JsWriter, v: number) => Promise<void> };
  encodeAnnounceBroadcast(w: JsWriter, msg: object, v: number): Promise<void>;
}
interface JsSubscribeModule {
  Subscribe: new (props: object) => { encode: (w: JsWriter, v: number) => Promise<void> };
  SubscribeUpdate: new (props: object) => { encode: (w: JsWriter, v: number) => Promise<void> };
  SubscribeStart: new (group: number) => object;
  SubscribeEnd: new (group: number) => object;
  encodeSubscribeResponse(w: JsWriter, resp: object, v: number): Promise<void>;
}
interface JsFetchModule {
  Fetch: new (broadcast: string, track: string, priority: number, group: number) => { encode: (w: JsWriter, v: number) => Promise<void> };
}
interface JsTrackModule {
  Track: new (broadcast: string, track: string) => { encode: (w: JsWriter, v: number) => Promise<void> };
  TrackInfo: new (props: object) => { encode: (w: JsWriter, v: number) => Promise<void> };
}

const load = async <T,>(file: string): Promise<T> => (await import(`../../node_modules/@moq/net/${file}`)) as T;
const { Writer } = await load<{ Writer: WriterCtor }>("stream.js");
const JsAnnounce = await load<JsAnnounceModule>("lite/announce.js");
const JsSubscribe = await load<JsSubscribeModule>("lite/subscribe.js");
const JsFetch = await load<JsFetchModule>("lite/fetch.js");
const JsTrack = await load<JsTrackModule>("lite/track.js");
const { from: jsPath } = await load<{ from: (p: string) => string }>("path.js");
const { Version } = await load<{ Version: { DRAFT_05: number; DRAFT_06: number } }>("lite/version.js");

function jsBytes(write: Write): Promise<Uint8Array> {
  return writtenBytes((stream) => new Writer(stream), write);
}

const u53 = fc.oneof(fc.nat(100), fc.nat(1 << 20), fc.maxSafeNat());
const u8 = fc.integer({ min: 0, max: 255 });
const opt = fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 1 }), { nil: undefined });
const text = fc.string({ unit: "grapheme", maxLength: 16 });
const RUNS = { numRuns: 50 };
const VERSIONS = [
  [LITE_05, Version.DRAFT_05],
  [LITE_06_WIP, Version.DRAFT_06],
] as const;

describe.each(VERSIONS.map(([v, js]) => [liteVersionName(v), v, js] as const))("%s bytes match @moq/net 0.3.4", (_name, v, js) => {
  it("for ANNOUNCE_REQUEST (exclude hop on lite-05 only)", async () => {
    await fc.assert(
      fc.asyncProperty(path, u53, async (prefix, hop) => {
        const excludeHop = hasExcludeHop(v) ? hop : 0;
        const theirs = await jsBytes((w) => new JsAnnounce.AnnounceRequest(jsPath(prefix), BigInt(excludeHop)).encode(w, js));
        expect(encodeMessage({ type: "announce_request", prefix, excludeHop }, v)).toEqual(theirs);
      }),
      RUNS,
    );
  });

  it("for SUBSCRIBE and SUBSCRIBE_UPDATE", async () => {
    await fc.assert(
      fc.asyncProperty(u53, path, text, u8, fc.boolean(), u53, opt, opt, async (id, broadcast, track, priority, ordered, maxLatency, startGroup, endGroup) => {
        const bounds = { ...(startGroup === undefined ? {} : { startGroup }), ...(endGroup === undefined ? {} : { endGroup }) };
        const sub = new JsSubscribe.Subscribe({ id: BigInt(id), broadcast: jsPath(broadcast), track, priority, ordered, maxLatency, ...bounds });
        expect(encodeMessage({ type: "subscribe", id, broadcast, track, priority, ordered, maxLatency, startGroup, endGroup }, v)).toEqual(await jsBytes((w) => sub.encode(w, js)));
        const update = new JsSubscribe.SubscribeUpdate({ priority, ordered, maxLatency, ...bounds });
        expect(encodeMessage({ type: "subscribe_update", priority, ordered, maxLatency, startGroup, endGroup }, v)).toEqual(await jsBytes((w) => update.encode(w, js)));
      }),
      RUNS,
    );
  });

  it("for SUBSCRIBE_START and SUBSCRIBE_END", async () => {
    await fc.assert(
      fc.asyncProperty(u53, async (group) => {
        const start = await jsBytes((w) => JsSubscribe.encodeSubscribeResponse(w, { start: new JsSubscribe.SubscribeStart(group) }, js));
        expect(encodeMessage({ type: "subscribe_start", group }, v)).toEqual(start);
        const end = await jsBytes((w) => JsSubscribe.encodeSubscribeResponse(w, { end: new JsSubscribe.SubscribeEnd(group) }, js));
        expect(encodeMessage({ type: "subscribe_end", group }, v)).toEqual(end);
      }),
      RUNS,
    );
  });

  it("for FETCH, TRACK and TRACK_INFO", async () => {
    await fc.assert(
      fc.asyncProperty(path, text, u8, u53, fc.boolean(), fc.integer({ min: 1, max: 2 ** 40 }), async (broadcast, track, priority, group, ordered, timescale) => {
        const fetch = new JsFetch.Fetch(jsPath(broadcast), track, priority, group);
        expect(encodeMessage({ type: "fetch", broadcast, track, priority, group }, v)).toEqual(await jsBytes((w) => fetch.encode(w, js)));
        const req = new JsTrack.Track(jsPath(broadcast), track);
        expect(encodeMessage({ type: "track", broadcast, track }, v)).toEqual(await jsBytes((w) => req.encode(w, js)));
        const info = new JsTrack.TrackInfo({ priority, ordered, latencyMax: group, timescale });
        expect(encodeMessage({ type: "track_info", priority, ordered, maxLatency: group, timescale }, v)).toEqual(await jsBytes((w) => info.encode(w, js)));
      }),
      RUNS,
    );
  });
});

describe("moq-lite-06-wip announces match @moq/net 0.3.4", () => {
  const hopsArb = fc.array(fc.maxSafeNat(), { maxLength: 32 });
  it("for ANNOUNCE_START, ANNOUNCE_END and ANNOUNCE_UPDATE", async () => {
    await fc.assert(
      fc.asyncProperty(path, hopsArb, u53, u53, async (suffix, hops, cost, id) => {
        const big = hops.map((h) => BigInt(h));
        const start = await jsBytes((w) => JsAnnounce.encodeAnnounceBroadcast(w, { status: "active", suffix: jsPath(suffix), hops: big, cost: BigInt(cost) }, Version.DRAFT_06));
        expect(encodeMessage({ type: "announce", status: "active", suffix, hops, cost }, LITE_06_WIP)).toEqual(start);
        const end = await jsBytes((w) => JsAnnounce.encodeAnnounceBroadcast(w, { status: "endedId", id: BigInt(id) }, Version.DRAFT_06));
        expect(encodeMessage({ type: "announce", status: "ended", suffix: "", hops: [], id }, LITE_06_WIP)).toEqual(end);
        const update = await jsBytes((w) => JsAnnounce.encodeAnnounceBroadcast(w, { status: "restart", id: BigInt(id), hops: big, cost: BigInt(cost) }, Version.DRAFT_06));
        expect(encodeMessage({ type: "announce", status: "restart", suffix: "", hops, id, cost }, LITE_06_WIP)).toEqual(update);
      }),
      RUNS,
    );
  });

  it("decodes the announce stream @moq/net writes: ANNOUNCE_OK, then typed START/UPDATE/END", async () => {
    const bytes = await jsBytes(async (w) => {
      await w.u53(7); // ANNOUNCE_OK: size 2, hop id 5, active count 1
      await JsAnnounce.encodeAnnounceBroadcast(w, { status: "active", suffix: jsPath("cam"), hops: [1n], cost: 3n }, Version.DRAFT_06);
      await JsAnnounce.encodeAnnounceBroadcast(w, { status: "restart", id: 0n, hops: [2n], cost: 4n }, Version.DRAFT_06);
      await JsAnnounce.encodeAnnounceBroadcast(w, { status: "endedId", id: 0n }, Version.DRAFT_06);
    });
    // The hand-written ANNOUNCE_OK above is one varint too short: replace its first byte.
    const stream = Uint8Array.of(2, 5, 1, ...bytes.subarray(1));
    const { messages, error } = decodeStream([stream], { role: "opened", kind: "announce", version: LITE_06_WIP });
    expect(error).toBeUndefined();
    expect(messages).toEqual([
      { type: "announce_ok", hopId: 5, activeCount: 1 },
      { type: "announce", status: "active", suffix: "cam", hops: [1], cost: 3 },
      { type: "announce", status: "restart", suffix: "", hops: [2], id: 0, cost: 4 },
      { type: "announce", status: "ended", suffix: "", hops: [], id: 0 },
    ]);
  });
});

describe("moq-lite-06 frame bounds (draft layout, hand-written vectors)", () => {
  it("adds startFrame and endFrame+1 after the group bounds of SUBSCRIBE", () => {
    // id 1, "a", "v", priority 2, ordered, latency 0, start group 5 (+1), end group 5 (+1),
    // start frame 3, end frame 7 (+1).
    const bytes = encodeMessage(
      { type: "subscribe", id: 1, broadcast: "a", track: "v", priority: 2, ordered: true, maxLatency: 0, startGroup: 5, endGroup: 5, startFrame: 3, endFrame: 7 },
      LITE_06,
    );
    expect([...bytes]).toEqual([12, 1, 1, 0x61, 1, 0x76, 2, 1, 0, 6, 6, 3, 8]);
  });

  it("adds the frame start after the sequence of GROUP", () => {
    expect([...encodeMessage({ type: "group", subscribe: 2, sequence: 9, frameStart: 4 }, LITE_06)]).toEqual([3, 2, 9, 4]);
  });

  it("adds startFrame and endFrame+1 after the group of FETCH", () => {
    expect([...encodeMessage({ type: "fetch", broadcast: "a", track: "v", priority: 0, group: 3, startFrame: 2, endFrame: undefined }, LITE_06)]).toEqual([8, 1, 0x61, 1, 0x76, 0, 3, 2, 0]);
  });

  it("refuses a frame bound without its group bound, both ways", () => {
    expect(() => encodeMessage({ type: "subscribe_update", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined, startFrame: 1 }, LITE_06)).toThrow();
    // Subscribe stream, SUBSCRIBE: id 1, "a", "v", priority 0, unordered, latency 0, no start
    // group, no end group, start frame 1, no end frame.
    const body = [1, 1, 0x61, 1, 0x76, 0, 0, 0, 0, 0, 1, 0];
    const { messages, error } = decodeStream([Uint8Array.of(2, body.length, ...body)], { role: "accepted-bidi", version: LITE_06 });
    expect(messages).toEqual([{ type: "stream_header", kind: "subscribe" }]);
    expect(error?.message).toMatch(/frame bound/);
  });

  it("refuses to send a partial group to a version without frame bounds", () => {
    expect(() => encodeMessage({ type: "group", subscribe: 2, sequence: 9, frameStart: 4 }, LITE_06_WIP)).toThrow();
    expect(() => encodeMessage({ type: "fetch", broadcast: "a", track: "v", priority: 0, group: 3, startFrame: 2 }, LITE_05)).toThrow();
  });

  it("reads a partial group stream back with its frame start", () => {
    const { messages } = decodeStream([Uint8Array.of(0, 3, 2, 9, 4)], { role: "accepted-uni", version: LITE_06 });
    expect(messages).toEqual([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 2, sequence: 9, frameStart: 4 },
    ]);
  });
});
