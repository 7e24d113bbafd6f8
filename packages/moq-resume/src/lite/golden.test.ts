// Golden vectors: the bytes npm @moq/lite 0.2.2 itself writes (its own encoder classes driven
// onto its Writer over an in-memory WritableStream) must equal ours, for random messages of
// lite-01..04 (it does not speak lite-05). Its internals are not in the package's exports map,
// so they are imported by file path.
import { installWithResolvers } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as JsAnnounce from "../../node_modules/@moq/lite/lite/announce.js";
import * as JsFetch from "../../node_modules/@moq/lite/lite/fetch.js";
import * as JsGoaway from "../../node_modules/@moq/lite/lite/goaway.js";
import * as JsGroup from "../../node_modules/@moq/lite/lite/group.js";
import * as JsProbe from "../../node_modules/@moq/lite/lite/probe.js";
import * as JsSession from "../../node_modules/@moq/lite/lite/session.js";
import { StreamId } from "../../node_modules/@moq/lite/lite/stream.js";
import * as JsSubscribe from "../../node_modules/@moq/lite/lite/subscribe.js";
import * as JsParams from "../../node_modules/@moq/lite/ietf/parameters.js";
import * as JsSetup from "../../node_modules/@moq/lite/ietf/setup.js";
import { Version as JsIetfVersion } from "../../node_modules/@moq/lite/ietf/version.js";
import * as JsPath from "../../node_modules/@moq/lite/path.js";
import { Reader, Writer } from "../../node_modules/@moq/lite/stream.js";
import { writtenBytes } from "./js-writer.test-helpers.js";
import { encodeMessage } from "./messages.js";
import { LiteStreamWriter } from "./stream-writer.js";
import { decodeStream } from "./stream-reader.js";
import { type StreamKind, streamTypeId } from "./stream.js";
import { path } from "./arbitraries.test-helpers.js";
import { LITE_01, LITE_02, LITE_03, LITE_04, hasExcludeHop, hasGoaway, hasProbeRtt, isLegacy, liteVersionName } from "./version.js";

// @moq/lite's connection code needs these on Node 20; the codec files do not, but a future
// import of its connection module would, so install them once here.
installWithResolvers();

function jsBytes(write: (w: Writer) => Promise<void>): Promise<Uint8Array> {
  return writtenBytes((stream) => new Writer(stream), write);
}

const ORACLE_VERSIONS = [LITE_01, LITE_02, LITE_03, LITE_04] as const;
const u53 = fc.oneof(fc.nat(100), fc.nat(1 << 20), fc.maxSafeNat());
const u8 = fc.integer({ min: 0, max: 255 });
const opt = fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 1 }), { nil: undefined });
const text = fc.string({ unit: "grapheme", maxLength: 16 });
const jsPath = (p: string): JsPath.Valid => JsPath.from(p);
const RUNS = { numRuns: 60 };

describe.each(ORACLE_VERSIONS.map((v) => [liteVersionName(v), v] as const))("%s bytes match @moq/lite", (_name, v) => {
  it("for ANNOUNCE_REQUEST", async () => {
    await fc.assert(
      fc.asyncProperty(path, u53, async (prefix, hop) => {
        const excludeHop = hasExcludeHop(v) ? hop : 0;
        const theirs = await jsBytes((w) => new JsAnnounce.AnnounceInterest(jsPath(prefix), excludeHop).encode(w, v));
        expect(encodeMessage({ type: "announce_request", prefix, excludeHop }, v)).toEqual(theirs);
      }),
      RUNS,
    );
  });

  it("for ANNOUNCE_BROADCAST", async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.boolean(), fc.array(u53, { maxLength: 32 }), async (suffix, active, ids) => {
        const hops = isLegacy(v) ? [] : ids;
        const theirs = await jsBytes((w) => new JsAnnounce.Announce({ suffix: jsPath(suffix), active, hops }).encode(w, v));
        expect(encodeMessage({ type: "announce", status: active ? "active" : "ended", suffix, hops }, v)).toEqual(theirs);
      }),
      RUNS,
    );
  });

  it("for SUBSCRIBE", async () => {
    await fc.assert(
      fc.asyncProperty(u53, path, text, u8, fc.boolean(), u53, opt, opt, async (id, broadcast, track, priority, ordered, maxLatency, startGroup, endGroup) => {
        const js = new JsSubscribe.Subscribe({ id: BigInt(id), broadcast: jsPath(broadcast), track, priority, ordered, maxLatency, ...(startGroup === undefined ? {} : { startGroup }), ...(endGroup === undefined ? {} : { endGroup }) });
        const theirs = await jsBytes((w) => js.encode(w, v));
        expect(encodeMessage({ type: "subscribe", id, broadcast, track, priority, ordered, maxLatency, startGroup, endGroup }, v)).toEqual(theirs);
      }),
      RUNS,
    );
  });

  it("for SUBSCRIBE_OK", async () => {
    await fc.assert(
      fc.asyncProperty(u8, fc.boolean(), u53, opt, opt, async (priority, ordered, maxLatency, startGroup, endGroup) => {
        const ok = new JsSubscribe.SubscribeOk({ priority, ordered, maxLatency, ...(startGroup === undefined ? {} : { startGroup }), ...(endGroup === undefined ? {} : { endGroup }) });
        const theirs = await jsBytes((w) => JsSubscribe.encodeSubscribeResponse(w, { ok }, v));
        expect(encodeMessage({ type: "subscribe_ok", priority, ordered, maxLatency, startGroup, endGroup }, v)).toEqual(theirs);
      }),
      RUNS,
    );
  });

  it("for GROUP headers and FRAMEs", async () => {
    await fc.assert(
      fc.asyncProperty(u53, u53, fc.uint8Array({ maxLength: 300 }), async (subscribe, sequence, payload) => {
        const theirs = await jsBytes(async (w) => {
          await w.u53(StreamId.Session); // uni stream type 0 = group
          await new JsGroup.Group(BigInt(subscribe), sequence).encode(w);
          await new JsGroup.Frame(payload).encode(w);
        });
        const ours = new LiteStreamWriter(v).encodeAll([
          { type: "stream_header", kind: "group" },
          { type: "group", subscribe, sequence },
          { type: "frame", payload, timestamp: undefined },
        ]);
        expect(ours).toEqual(theirs);
      }),
      RUNS,
    );
  });

  it("for the bidi stream type ids", () => {
    const kinds: [StreamKind, number][] = [
      ["announce", StreamId.Announce],
      ["subscribe", StreamId.Subscribe],
      ["fetch", StreamId.Fetch],
      ["probe", StreamId.Probe],
      ["goaway", StreamId.Goaway],
    ];
    expect(kinds.map(([k]) => streamTypeId(k))).toEqual(kinds.map(([, id]) => id));
  });

  if (!isLegacy(v)) {
    it("for SUBSCRIBE_UPDATE", async () => {
      await fc.assert(
        fc.asyncProperty(u8, fc.boolean(), u53, opt, opt, async (priority, ordered, maxLatency, startGroup, endGroup) => {
          const js = new JsSubscribe.SubscribeUpdate({ priority, ordered, maxLatency, ...(startGroup === undefined ? {} : { startGroup }), ...(endGroup === undefined ? {} : { endGroup }) });
          const theirs = await jsBytes((w) => js.encode(w, v));
          expect(encodeMessage({ type: "subscribe_update", priority, ordered, maxLatency, startGroup, endGroup }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });

    it("for SUBSCRIBE_DROP", async () => {
      await fc.assert(
        fc.asyncProperty(u53, u53, u53, async (start, end, error) => {
          const drop = new JsSubscribe.SubscribeDrop({ start, end, error });
          const theirs = await jsBytes((w) => JsSubscribe.encodeSubscribeResponse(w, { drop }, v));
          expect(encodeMessage({ type: "subscribe_drop", start, end, error }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });

    it("for FETCH", async () => {
      await fc.assert(
        fc.asyncProperty(path, text, u8, u53, async (broadcast, track, priority, group) => {
          const theirs = await jsBytes((w) => new JsFetch.Fetch(jsPath(broadcast), track, priority, group).encode(w, v));
          expect(encodeMessage({ type: "fetch", broadcast, track, priority, group }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });

    it("for PROBE", async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.option(fc.integer({ min: 1, max: 1e9 }), { nil: undefined }), async (bitrate, rttIn) => {
          const rtt = hasProbeRtt(v) ? rttIn : undefined;
          const theirs = await jsBytes((w) => new JsProbe.Probe(bitrate, rtt).encode(w, v));
          // @moq/lite writes a bitrate of 0 as-is, which is also "unknown" on the wire.
          expect(encodeMessage({ type: "probe", bitrate: bitrate === 0 ? undefined : bitrate, rtt }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });
  } else {
    it("for ANNOUNCE_INIT", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(path, { maxLength: 6 }), async (suffixes) => {
          const theirs = await jsBytes((w) => new JsAnnounce.AnnounceInit(suffixes.map(jsPath)).encode(w, v));
          expect(encodeMessage({ type: "announce_init", suffixes }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });

    it("for SESSION_INFO", async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), async (bitrate) => {
          const theirs = await jsBytes((w) => new JsSession.SessionInfo(bitrate).encode(w, v));
          expect(encodeMessage({ type: "session_info", bitrate }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });
  }

  if (hasGoaway(v)) {
    it("for GOAWAY", async () => {
      await fc.assert(
        fc.asyncProperty(text, async (uri) => {
          const theirs = await jsBytes((w) => new JsGoaway.Goaway(uri).encode(w, v));
          expect(encodeMessage({ type: "goaway", uri }, v)).toEqual(theirs);
        }),
        RUNS,
      );
    });
  }
});

describe("the 0x20/0x21 SETUP exchange matches @moq/lite's draft-14 framing", () => {
  it("encodes the CLIENT_SETUP @moq/lite sends on its default WebSocket path", async () => {
    const implementation = new TextEncoder().encode("moq-lite-js");
    const params = new JsParams.SetupOptions();
    params.setVarint(JsParams.SetupOption.MaxRequestId, 42069n);
    params.setBytes(JsParams.SetupOption.Implementation, implementation);
    const versions = [LITE_02, LITE_01, JsIetfVersion.DRAFT_14];
    const theirs = await jsBytes(async (w) => {
      await w.u53(StreamId.ClientCompat);
      await new JsSetup.ClientSetup({ versions, parameters: params }).encode(w, JsIetfVersion.DRAFT_14);
    });
    const ours = encodeMessage(
      { type: "client_setup", versions, parameters: [{ id: 2, value: 42069 }, { id: 7, value: implementation }] },
      LITE_02,
    );
    expect(ours).toEqual(theirs);
  });

  it("decodes the SERVER_SETUP we send with @moq/lite's own decoder", async () => {
    const ours = encodeMessage({ type: "server_setup", version: LITE_02, parameters: [{ id: 2, value: 7 }] }, LITE_02);
    const reader = new Reader(undefined, ours);
    expect(await reader.u53()).toBe(StreamId.ServerCompat);
    const server = await JsSetup.ServerSetup.decode(reader, JsIetfVersion.DRAFT_14);
    expect(server.version).toBe(LITE_02);
    expect(server.parameters.getVarint(2n)).toBe(7n);
  });

  it("decodes the CLIENT_SETUP @moq/lite sends", async () => {
    const params = new JsParams.SetupOptions();
    params.setVarint(JsParams.SetupOption.MaxRequestId, 42069n);
    const theirs = await jsBytes(async (w) => {
      await w.u53(StreamId.ClientCompat);
      await new JsSetup.ClientSetup({ versions: [LITE_02, LITE_01], parameters: params }).encode(w, JsIetfVersion.DRAFT_14);
    });
    const { messages, error } = decodeStream([theirs], { role: "setup-server" });
    expect(error).toBeUndefined();
    expect(messages).toEqual([{ type: "client_setup", versions: [LITE_02, LITE_01], parameters: [{ id: 2, value: 42069 }] }]);
  });
});

describe("@moq/lite decodes what we encode", () => {
  it("for lite-04 announces with hop ids", async () => {
    const ours = encodeMessage({ type: "announce", status: "active", suffix: "room/alice", hops: [7, 9] }, LITE_04);
    const theirs = await JsAnnounce.Announce.decode(new Reader(undefined, ours), LITE_04);
    expect({ suffix: theirs.suffix, active: theirs.active, hops: theirs.hops }).toEqual({ suffix: "room/alice", active: true, hops: [7, 9] });
  });

  it("for lite-03 subscribe responses", async () => {
    const ours = encodeMessage({ type: "subscribe_drop", start: 3, end: 5, error: 1 }, LITE_03);
    const theirs = await JsSubscribe.decodeSubscribeResponse(new Reader(undefined, ours), LITE_03);
    expect("drop" in theirs ? { start: theirs.drop.start, end: theirs.drop.end, error: theirs.drop.error } : undefined).toEqual({ start: 3, end: 5, error: 1 });
  });
});
