// fast-check generators for lite messages and whole streams, shared by the codec's tests.
import fc from "fast-check";
import type { Announce, AnnounceStatus } from "./announce.js";
import type { Frame } from "./group.js";
import type { LiteMessage } from "./messages.js";
import type { SetupParameter } from "./parameters.js";
import type { SetupFraming } from "./session-stream.js";
import type { Setup } from "./setup.js";
import type { LiteStreamReaderOptions } from "./stream-reader.js";
import type { SubscribeResponse } from "./subscribe.js";
import {
  type LiteVersion,
  LITE_01,
  LITE_03,
  hasAnnounceIds,
  hasFrameBounds,
  hasGoaway,
  hasExcludeHop,
  hasProbeRtt,
  hasTrackStream,
  isLegacy,
} from "./version.js";

/** A whole stream: how to read it and the messages it carries, in order. */
export interface StreamCase {
  readonly name: string;
  readonly options: LiteStreamReaderOptions;
  readonly messages: readonly LiteMessage[];
  readonly setupFraming?: SetupFraming;
}

const MAX = Number.MAX_SAFE_INTEGER;
/** Any decodable varint value (mostly small, sometimes near 2^53). */
export const u53 = fc.oneof(fc.nat(100), fc.nat(70000), fc.maxSafeNat());
const u8 = fc.integer({ min: 0, max: 255 });
const opt = fc.option(fc.integer({ min: 0, max: MAX - 1 }), { nil: undefined });
const part = fc.stringMatching(/^[a-z0-9._-]{1,8}$/);
/** Normalised broadcast paths of up to 5 parts. */
export const path = fc.array(part, { maxLength: 5 }).map((parts) => parts.join("/"));
const text = fc.string({ unit: "grapheme", maxLength: 16 });
const bytes = fc.uint8Array({ maxLength: 40 });

const announceRequest = (v: LiteVersion): fc.Arbitrary<LiteMessage> =>
  fc.record({ prefix: path, excludeHop: hasExcludeHop(v) ? u53 : fc.constant(0) }).map((m) => ({ type: "announce_request", ...m }));

const announce = (v: LiteVersion): fc.Arbitrary<Announce> => {
  const statuses: AnnounceStatus[] = hasTrackStream(v) ? ["ended", "active", "restart"] : ["ended", "active"];
  const hops = isLegacy(v)
    ? fc.constant<number[]>([])
    : v === LITE_03
      ? fc.nat(32).map((n) => new Array<number>(n).fill(0))
      : fc.array(u53, { maxLength: 32 });
  if (hasAnnounceIds(v)) {
    // lite-06: START carries the suffix, END only the id, UPDATE the id, hops and cost.
    return fc.record({ status: fc.constantFrom(...statuses), suffix: path, hops, id: u53, cost: u53 }).map(({ status, suffix, hops: h, id, cost }): Announce => {
      switch (status) {
        case "active":
          return { type: "announce", status, suffix, hops: h, cost };
        case "ended":
          return { type: "announce", status, suffix: "", hops: [], id };
        case "restart":
          return { type: "announce", status, suffix: "", hops: h, id, cost };
      }
    });
  }
  return fc.record({ status: fc.constantFrom(...statuses), suffix: path, hops }).map((m) => ({ type: "announce", ...m }));
};

const basePrefs = fc.record({ priority: u8, ordered: fc.boolean(), maxLatency: u53, startGroup: opt, endGroup: opt });

/** Subscription preferences; moq-lite-06 adds frame bounds, each only with its group bound. */
const prefsFor = (v: LiteVersion) =>
  hasFrameBounds(v)
    ? fc.tuple(basePrefs, u53, opt).map(([p, startFrame, endFrame]) => ({
        ...p,
        startFrame: p.startGroup === undefined ? 0 : startFrame,
        endFrame: p.endGroup === undefined ? undefined : endFrame,
      }))
    : basePrefs;


const subscribe = (v: LiteVersion): fc.Arbitrary<LiteMessage> =>
  fc
    .record({ id: u53, broadcast: path, track: text, prefs: prefsFor(v) })
    .map(({ id, broadcast, track, prefs: p }) =>
      isLegacy(v)
        ? { type: "subscribe", id, broadcast, track, priority: p.priority, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined }
        : { type: "subscribe", id, broadcast, track, ...p },
    );

const subscribeResponse = (v: LiteVersion): fc.Arbitrary<SubscribeResponse> => {
  const drop = fc.record({ start: u53, end: u53, error: u53 }).map((m) => ({ type: "subscribe_drop" as const, ...m }));
  if (hasTrackStream(v)) {
    return fc.oneof(
      u53.map((group) => ({ type: "subscribe_start" as const, group })),
      u53.map((group) => ({ type: "subscribe_end" as const, group })),
      drop,
    );
  }
  return fc.oneof(basePrefs.map((p) => ({ type: "subscribe_ok" as const, ...p })), drop);
};

const legacyOk = (v: LiteVersion): fc.Arbitrary<LiteMessage> =>
  u8.map((priority) => ({
    type: "subscribe_ok",
    priority: v === LITE_01 ? priority : 0,
    ordered: false,
    maxLatency: 0,
    startGroup: undefined,
    endGroup: undefined,
  }));

const probe = (v: LiteVersion): fc.Arbitrary<LiteMessage> =>
  fc
    .record({
      bitrate: fc.option(fc.integer({ min: 1, max: MAX }), { nil: undefined }),
      rtt: hasProbeRtt(v) ? fc.option(fc.integer({ min: 1, max: MAX }), { nil: undefined }) : fc.constant(undefined),
    })
    .map((m) => ({ type: "probe", ...m }));

/** Frames with increasing-or-not timestamps on lite-05, none before. */
const frames = (v: LiteVersion): fc.Arbitrary<Frame[]> =>
  fc.array(fc.record({ payload: bytes, ts: fc.nat(1_000_000_000) }), { maxLength: 6 }).map((list) =>
    list.map(({ payload, ts }) => ({ type: "frame", payload, timestamp: hasTrackStream(v) ? ts : undefined })),
  );

const unknownParams = fc
  .uniqueArray(fc.integer({ min: 6, max: 5000 }), { maxLength: 4 })
  .chain((ids) => fc.tuple(...ids.map((id) => bytes.map((value): SetupParameter => ({ id, value })))));

const setup: fc.Arbitrary<Setup> = fc.record({
  type: fc.constant("setup" as const),
  probe: fc.constantFrom("none" as const, "report" as const, "increase" as const),
  path: fc.option(text, { nil: undefined }),
  role: fc.constantFrom("both" as const, "publisher" as const, "subscriber" as const),
  cost: fc.option(u53, { nil: undefined }),
  origin: fc.option(fc.integer({ min: 1, max: MAX }), { nil: undefined }),
  unknown: unknownParams,
});

const draft14Params = fc
  .uniqueArray(fc.nat(5000), { maxLength: 4 })
  .chain((ids) => fc.tuple(...ids.map((id) => (id % 2 === 0 ? u53 : bytes).map((value): SetupParameter => ({ id, value })))));
const liteParams = fc
  .uniqueArray(fc.nat(5000), { maxLength: 4 })
  .chain((ids) => fc.tuple(...ids.map((id) => bytes.map((value): SetupParameter => ({ id, value })))));

const sessionInfos = fc.array(
  fc.option(fc.integer({ min: 1, max: MAX }), { nil: undefined }).map((bitrate): LiteMessage => ({ type: "session_info", bitrate })),
  { maxLength: 3 },
);

function accepted(name: string, v: LiteVersion, uni: boolean, arb: fc.Arbitrary<LiteMessage[]>): fc.Arbitrary<StreamCase> {
  return arb.map((messages) => ({ name, options: { role: uni ? "accepted-uni" : "accepted-bidi", version: v }, messages }));
}

function opened(name: string, v: LiteVersion, kind: "announce" | "subscribe" | "fetch" | "probe" | "track", arb: fc.Arbitrary<LiteMessage[]>): fc.Arbitrary<StreamCase> {
  return arb.map((messages) => ({ name, options: { role: "opened", kind, version: v }, messages }));
}

/** Every stream shape `v` has, with arbitrary valid contents. */
export function streamCases(v: LiteVersion): fc.Arbitrary<StreamCase>[] {
  const head = (kind: "announce" | "subscribe" | "fetch" | "probe" | "goaway" | "track" | "group" | "setup"): LiteMessage => ({ type: "stream_header", kind });
  const cases: fc.Arbitrary<StreamCase>[] = [
    accepted("announce request", v, false, announceRequest(v).map((m) => [head("announce"), m])),
    accepted(
      "subscribe and updates",
      v,
      false,
      fc
        .tuple(subscribe(v), isLegacy(v) ? fc.constant([]) : fc.array(prefsFor(v).map((p): LiteMessage => ({ type: "subscribe_update", ...p })), { maxLength: 3 }))
        .map(([s, ups]) => [head("subscribe"), s, ...ups]),
    ),
    accepted(
      "group stream",
      v,
      true,
      fc
        .tuple(fc.record({ subscribe: u53, sequence: u53, frameStart: u53 }), frames(v))
        .map(([{ frameStart, ...g }, fs]) => [head("group"), { type: "group", ...g, ...(hasFrameBounds(v) ? { frameStart } : {}) }, ...fs]),
    ),
    opened(
      "announce responses",
      v,
      "announce",
      fc.tuple(fc.array(path, { maxLength: 4 }), fc.record({ hopId: u53, activeCount: u53 }), fc.array(announce(v), { maxLength: 4 })).map(
        ([suffixes, ok, list]) =>
          isLegacy(v)
            ? [{ type: "announce_init", suffixes }, ...list]
            : hasTrackStream(v)
              ? [{ type: "announce_ok", ...ok }, ...list]
              : list,
      ),
    ),
    opened(
      "subscribe responses",
      v,
      "subscribe",
      isLegacy(v) ? legacyOk(v).map((m) => [m]) : fc.array(subscribeResponse(v), { maxLength: 4 }),
    ),
  ];
  if (!isLegacy(v)) {
    cases.push(accepted("probe requests", v, false, fc.array(probe(v), { maxLength: 3 }).map((ps) => [head("probe"), ...ps])));
    cases.push(opened("probe reports", v, "probe", fc.array(probe(v), { maxLength: 3 })));
  } else {
    cases.push(
      fc.tuple(fc.array(u53, { maxLength: 5 }), draft14Params, sessionInfos, fc.constantFrom<SetupFraming>("draft14", "lite"), liteParams).map(
        ([versions, p14, infos, framing, pl]) => ({
          name: "client setup",
          options: { role: "setup-server", framing },
          setupFraming: framing,
          messages: [{ type: "client_setup", versions, parameters: framing === "draft14" ? p14 : pl }, ...infos],
        }),
      ),
      fc.tuple(u53, draft14Params, sessionInfos, fc.constantFrom<SetupFraming>("draft14", "lite"), liteParams).map(
        ([version, p14, infos, framing, pl]) => ({
          name: "server setup",
          options: { role: "setup-client", framing },
          setupFraming: framing,
          messages: [{ type: "server_setup", version, parameters: framing === "draft14" ? p14 : pl }, ...infos],
        }),
      ),
    );
  }
  if (hasGoaway(v)) {
    cases.push(accepted("goaway", v, false, text.map((uri) => [head("goaway"), { type: "goaway", uri }])));
  }
  if (hasTrackStream(v)) {
    cases.push(
      accepted(
        "fetch request",
        v,
        false,
        fc
          .record({ broadcast: path, track: text, priority: u8, group: u53, startFrame: fc.nat(1000), span: fc.option(fc.nat(1000), { nil: undefined }) })
          .map(({ startFrame, span, ...m }) => [
            head("fetch"),
            { type: "fetch", ...m, ...(hasFrameBounds(v) ? { startFrame, endFrame: span === undefined ? undefined : startFrame + span } : {}) },
          ]),
      ),
      opened("fetch frames", v, "fetch", frames(v)),
      accepted("track request", v, false, fc.record({ broadcast: path, track: text }).map((m) => [head("track"), { type: "track", ...m }])),
      opened(
        "track info",
        v,
        "track",
        fc
          .record({ priority: u8, ordered: fc.boolean(), maxLatency: u53, timescale: fc.integer({ min: 1, max: MAX }) })
          .map((m) => [{ type: "track_info", ...m }]),
      ),
      accepted("setup stream", v, true, setup.map((s) => [head("setup"), s])),
    );
  }
  return cases;
}
