import { encodeError, malformed } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import { writePath } from "./path.js";
import type { BodyReader } from "./reader.js";
import {
  type LiteVersion,
  LITE_01,
  LITE_02,
  LITE_03,
  LITE_04,
  LITE_05,
  LITE_06,
  LITE_06_WIP,
  hasFrameBounds,
  hasTrackStream,
  isLegacy,
  unreachable,
  versionError,
} from "./version.js";
import type { ByteWriter } from "./writer.js";

/**
 * SUBSCRIBE. On lite-01/02 only id, broadcast, track and priority travel; the rest decode as
 * their defaults (unordered, 0 ms, latest, unbounded). `startGroup`/`endGroup` are
 * `Option<u64>` on the wire (0 = none, else seq+1); `maxLatency` is in milliseconds.
 */
export interface Subscribe {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "subscribe";
  /** Chosen by the subscriber, unique in the session; groups name it. */
  readonly id: number;
  /** The broadcast's path. */
  readonly broadcast: string;
  /** The track's name within the broadcast. */
  readonly track: string;
  /** Send priority against the session's other subscriptions (0..255, higher first). */
  readonly priority: number;
  /** Deliver groups in sequence order rather than newest first. */
  readonly ordered: boolean;
  /** How old (ms) a group may get before it is skipped; 0: no limit. */
  readonly maxLatency: number;
  /** First group wanted; undefined: the latest. */
  readonly startGroup: number | undefined;
  /** Last group wanted, inclusive; undefined: no end. */
  readonly endGroup: number | undefined;
  /** moq-lite-06: first frame to deliver of `startGroup` (0 or absent: the whole group). */
  readonly startFrame?: number;
  /** moq-lite-06: last frame (inclusive) to deliver of `endGroup` (absent: the whole group). */
  readonly endFrame?: number | undefined;
}

/** SUBSCRIBE_UPDATE (lite-03+): new preferences for a live subscription. */
export interface SubscribeUpdate {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "subscribe_update";
  /** See {@link Subscribe.priority}. */
  readonly priority: number;
  /** See {@link Subscribe.ordered}. */
  readonly ordered: boolean;
  /** See {@link Subscribe.maxLatency}. */
  readonly maxLatency: number;
  /** See {@link Subscribe.startGroup}. */
  readonly startGroup: number | undefined;
  /** See {@link Subscribe.endGroup}. */
  readonly endGroup: number | undefined;
  /** See {@link Subscribe.startFrame}. */
  readonly startFrame?: number;
  /** See {@link Subscribe.endFrame}. */
  readonly endFrame?: number | undefined;
}

/** The frame bounds of a subscription, as they travel on moq-lite-06. */
export interface FrameBounds {
  /** See {@link Subscribe.startFrame}; 0: the whole group. */
  readonly startFrame: number;
  /** See {@link Subscribe.endFrame}; undefined: the whole group. */
  readonly endFrame: number | undefined;
}

/**
 * Writes moq-lite-06's frame bounds (`startFrame` varint, `endFrame` as an Option: 0 none, else
 * frame+1). A frame bound without the group bound it qualifies cannot be encoded; on older
 * versions any bound other than "the whole group" cannot either, since the peer would deliver
 * frames the caller excluded.
 */
export function writeFrameBounds(w: ByteWriter, msg: Partial<FrameBounds> & { readonly startGroup: number | undefined; readonly endGroup: number | undefined }, version: LiteVersion): void {
  const startFrame = msg.startFrame ?? 0;
  const endFrame = msg.endFrame;
  if ((startFrame !== 0 && msg.startGroup === undefined) || (endFrame !== undefined && msg.endGroup === undefined)) {
    throw encodeError("invalid_value", "a frame bound needs the group bound it qualifies");
  }
  if (!hasFrameBounds(version)) {
    if (startFrame !== 0 || endFrame !== undefined) throw versionError("frame bounds", version, true);
    return;
  }
  w.varint(startFrame, "startFrame");
  w.optional(endFrame, "endFrame");
}

/** Reads moq-lite-06's frame bounds; older versions decode as the whole group. */
export function readFrameBounds(r: BodyReader, version: LiteVersion, startGroup: number | undefined, endGroup: number | undefined): FrameBounds {
  if (!hasFrameBounds(version)) return { startFrame: 0, endFrame: undefined };
  const startFrame = r.varint();
  const endFrame = r.optional();
  if ((startFrame !== 0 && startGroup === undefined) || (endFrame !== undefined && endGroup === undefined)) {
    throw malformed("invalid_value", "a frame bound without the group bound it qualifies");
  }
  return { startFrame, endFrame };
}

/**
 * SUBSCRIBE_OK (lite-01..04). lite-01 carries only the priority, lite-02 an empty body,
 * lite-03/04 every field; absent fields decode as defaults.
 */
export interface SubscribeOk {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "subscribe_ok";
  /** The priority the publisher will use. */
  readonly priority: number;
  /** The order the publisher will deliver in. */
  readonly ordered: boolean;
  /** The latency bound (ms) the publisher will apply; 0: none. */
  readonly maxLatency: number;
  /** The first group the publisher will send; undefined: the latest. */
  readonly startGroup: number | undefined;
  /** The last group it will send, inclusive; undefined: no end. */
  readonly endGroup: number | undefined;
}

/** SUBSCRIBE_DROP (lite-03+): groups `start..=end` will not come; `error` 0 means unavailable. */
export interface SubscribeDrop {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "subscribe_drop";
  /** First dropped group. */
  readonly start: number;
  /** Last dropped group, inclusive. */
  readonly end: number;
  /** Why they were dropped; 0: unavailable. */
  readonly error: number;
}

/** SUBSCRIBE_START (lite-05): the resolved first group. */
export interface SubscribeStart {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "subscribe_start";
  /** The sequence number delivery starts at (a "latest" request resolved). */
  readonly group: number;
}

/** SUBSCRIBE_END (lite-05): the exclusive end; 0 means no groups at all. */
export interface SubscribeEnd {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "subscribe_end";
  /** One past the last group that will be delivered. */
  readonly group: number;
}

/** A publisher's reply on the subscribe stream. */
export type SubscribeResponse = SubscribeOk | SubscribeDrop | SubscribeStart | SubscribeEnd;

/** Encodes SUBSCRIBE (size-prefixed). */
export function writeSubscribe(w: ByteWriter, msg: Subscribe, version: LiteVersion, limits: LiteLimits): void {
  w.sized(() => {
    w.varint(msg.id, "subscribe id");
    writePath(w, msg.broadcast, limits);
    w.string(msg.track);
    w.u8(msg.priority);
    if (isLegacy(version)) return;
    w.bool(msg.ordered);
    w.varint(msg.maxLatency, "maxLatency");
    w.optional(msg.startGroup, "startGroup");
    w.optional(msg.endGroup, "endGroup");
    writeFrameBounds(w, msg, version);
  });
}

/** Decodes a SUBSCRIBE body. */
export function readSubscribe(r: BodyReader, version: LiteVersion): Subscribe {
  const id = r.varint();
  const broadcast = r.path();
  const track = r.string();
  const priority = r.u8();
  if (isLegacy(version)) {
    return { type: "subscribe", id, broadcast, track, priority, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined };
  }
  // The reference reads `ordered` as a byte that is true when non-zero.
  const ordered = r.u8() !== 0;
  const maxLatency = r.varint();
  const startGroup = r.optional();
  const endGroup = r.optional();
  const frames = hasFrameBounds(version) ? readFrameBounds(r, version, startGroup, endGroup) : {};
  return { type: "subscribe", id, broadcast, track, priority, ordered, maxLatency, startGroup, endGroup, ...frames };
}

interface Preferences {
  readonly priority: number;
  readonly ordered: boolean;
  readonly maxLatency: number;
  readonly startGroup: number | undefined;
  readonly endGroup: number | undefined;
}

function writePreferences(w: ByteWriter, msg: Preferences): void {
  w.u8(msg.priority);
  w.bool(msg.ordered);
  w.varint(msg.maxLatency, "maxLatency");
  w.optional(msg.startGroup, "startGroup");
  w.optional(msg.endGroup, "endGroup");
}

function readPreferences(r: BodyReader): Preferences {
  const priority = r.u8();
  const ordered = r.u8() !== 0;
  const maxLatency = r.varint();
  const startGroup = r.optional();
  const endGroup = r.optional();
  return { priority, ordered, maxLatency, startGroup, endGroup };
}

/** Encodes SUBSCRIBE_UPDATE (size-prefixed, lite-03+). */
export function writeSubscribeUpdate(w: ByteWriter, msg: SubscribeUpdate, version: LiteVersion): void {
  if (isLegacy(version)) throw versionError("SUBSCRIBE_UPDATE", version, true);
  w.sized(() => {
    writePreferences(w, msg);
    writeFrameBounds(w, msg, version);
  });
}

/** Decodes a SUBSCRIBE_UPDATE body. */
export function readSubscribeUpdate(r: BodyReader, version: LiteVersion): SubscribeUpdate {
  if (isLegacy(version)) throw versionError("SUBSCRIBE_UPDATE", version, false);
  const prefs = readPreferences(r);
  const frames = hasFrameBounds(version) ? readFrameBounds(r, version, prefs.startGroup, prefs.endGroup) : {};
  return { type: "subscribe_update", ...prefs, ...frames };
}

function writeOkBody(w: ByteWriter, msg: SubscribeOk, version: LiteVersion): void {
  if (version === LITE_01) w.u8(msg.priority);
  else if (version !== LITE_02) writePreferences(w, msg);
}

function readOkBody(r: BodyReader, version: LiteVersion): SubscribeOk {
  if (version === LITE_01 || version === LITE_02) {
    const priority = version === LITE_01 ? r.u8() : 0;
    return { type: "subscribe_ok", priority, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined };
  }
  return { type: "subscribe_ok", ...readPreferences(r) };
}

/**
 * Encodes a subscribe response. lite-01/02: a bare size-prefixed SUBSCRIBE_OK. lite-03/04:
 * varint type (0 OK, 1 DROP) then the size-prefixed body. lite-05: type 0 START, 1 END, 2 DROP.
 */
export function writeSubscribeResponse(w: ByteWriter, msg: SubscribeResponse, version: LiteVersion): void {
  switch (version) {
    case LITE_01:
    case LITE_02:
      if (msg.type !== "subscribe_ok") throw versionError(msg.type, version, true);
      w.sized(() => { writeOkBody(w, msg, version); });
      return;
    case LITE_03:
    case LITE_04:
      switch (msg.type) {
        case "subscribe_ok":
          w.varint(0).sized(() => { writeOkBody(w, msg, version); });
          return;
        case "subscribe_drop":
          w.varint(1).sized(() => { writeDropBody(w, msg); });
          return;
        case "subscribe_start":
        case "subscribe_end":
          throw versionError(msg.type, version, true);
        default:
          return unreachable(msg);
      }
    case LITE_05:
    case LITE_06_WIP:
    case LITE_06:
      switch (msg.type) {
        case "subscribe_start":
          w.varint(0).sized(() => w.varint(msg.group, "group"));
          return;
        case "subscribe_end":
          w.varint(1).sized(() => w.varint(msg.group, "group"));
          return;
        case "subscribe_drop":
          w.varint(2).sized(() => { writeDropBody(w, msg); });
          return;
        case "subscribe_ok":
          throw versionError(msg.type, version, true);
        default:
          return unreachable(msg);
      }
    default:
      return unreachable(version);
  }
}

function writeDropBody(w: ByteWriter, msg: SubscribeDrop): void {
  w.varint(msg.start, "start").varint(msg.end, "end").varint(msg.error, "error");
}

/**
 * Decodes the body of a typed subscribe response given its type id; `responseType` is ignored
 * on lite-01/02 where the response is untyped.
 */
export function readSubscribeResponse(r: BodyReader, responseType: number, version: LiteVersion): SubscribeResponse {
  if (isLegacy(version)) return readOkBody(r, version);
  if (hasTrackStream(version)) {
    switch (responseType) {
      case 0:
        return { type: "subscribe_start", group: r.varint() };
      case 1:
        return { type: "subscribe_end", group: r.varint() };
      case 2:
        return readDropBody(r);
      default:
        throw malformed("unknown_type", `unknown subscribe response type ${responseType}`);
    }
  }
  switch (responseType) {
    case 0:
      return readOkBody(r, version);
    case 1:
      return readDropBody(r);
    default:
      throw malformed("unknown_type", `unknown subscribe response type ${responseType}`);
  }
}

function readDropBody(r: BodyReader): SubscribeDrop {
  const start = r.varint();
  const end = r.varint();
  const error = r.varint();
  return { type: "subscribe_drop", start, end, error };
}
