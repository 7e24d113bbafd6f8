import { encodeError, malformed } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import { writePath } from "./path.js";
import type { BodyReader } from "./reader.js";
import { type LiteVersion, LITE_03, hasAnnounceIds, hasExcludeHop, hasTrackStream, isLegacy, unreachable, versionError } from "./version.js";
import type { ByteWriter } from "./writer.js";

/**
 * ANNOUNCE_REQUEST (formerly ANNOUNCE_PLEASE / ANNOUNCE_INTEREST): the subscriber asks for the
 * broadcasts under `prefix`. `excludeHop` is on the wire in lite-04/05 only (0 elsewhere).
 */
export interface AnnounceRequest {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "announce_request";
  /** The path prefix; every broadcast announced back lies under it. */
  readonly prefix: string;
  /** A hop id whose announces the publisher should not send back (loop avoidance between relays); 0 none. */
  readonly excludeHop: number;
}

/** ANNOUNCE_INIT (lite-01/02): the initial set of active suffixes. */
export interface AnnounceInit {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "announce_init";
  /** Suffixes (relative to the request's prefix) active when the request arrived. */
  readonly suffixes: readonly string[];
}

/**
 * ANNOUNCE_OK (lite-05): the publisher's hop id (the implicit last hop of every later
 * announce) and how many of the following announces form the initial set.
 */
export interface AnnounceOk {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "announce_ok";
  /** The publisher's own hop id, appended implicitly to every later announce's hops. */
  readonly hopId: number;
  /** How many of the following announces are the initial set; after them the set is live. */
  readonly activeCount: number;
}

/** Announce status byte: 0 ended, 1 active, 2 restart (lite-05). */
export type AnnounceStatus = "ended" | "active" | "restart";

/**
 * ANNOUNCE_BROADCAST: a broadcast under the requested prefix became active or ended.
 * `hops` is empty on lite-01/02; on lite-03 only the count travels and the ids decode as 0
 * (unknown), as in the reference; lite-04+ carry the ids.
 *
 * lite-06 splits it into typed messages: ANNOUNCE_START (status `active`: suffix, hops, cost;
 * it assigns the stream's next announce id, 0, 1, 2, ...), ANNOUNCE_END (`ended`: only `id`)
 * and ANNOUNCE_UPDATE (`restart`: `id`, hops, cost). On lite-06 an END or UPDATE decodes with
 * an empty `suffix` and the stream's owner resolves it from `id`; `cost` is the route cost
 * (undefined before lite-06, where none travels).
 */
export interface Announce {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "announce";
  /** Whether the broadcast started, ended or restarted. */
  readonly status: AnnounceStatus;
  /** The broadcast's path relative to the request's prefix. */
  readonly suffix: string;
  /** Hop ids of the relays the announce passed through, for loop detection and route length. */
  readonly hops: readonly number[];
  /** lite-06 announce id of an END or UPDATE (START assigns it implicitly). */
  readonly id?: number;
  /** lite-06 route cost of a START or UPDATE. */
  readonly cost?: number;
}

/** lite-06 announce message types, sent before the size like the subscribe responses. */
const ANNOUNCE_START = 0;
const ANNOUNCE_END = 1;
const ANNOUNCE_UPDATE = 2;

/** Encodes ANNOUNCE_REQUEST (size-prefixed). */
export function writeAnnounceRequest(w: ByteWriter, msg: AnnounceRequest, version: LiteVersion, limits: LiteLimits): void {
  w.sized(() => {
    writePath(w, msg.prefix, limits);
    if (hasExcludeHop(version)) w.varint(msg.excludeHop, "excludeHop");
  });
}

/** Decodes an ANNOUNCE_REQUEST body. */
export function readAnnounceRequest(r: BodyReader, version: LiteVersion): AnnounceRequest {
  const prefix = r.path();
  const excludeHop = hasExcludeHop(version) ? r.varint() : 0;
  return { type: "announce_request", prefix, excludeHop };
}

/** Encodes ANNOUNCE_INIT (size-prefixed, lite-01/02 only). */
export function writeAnnounceInit(w: ByteWriter, msg: AnnounceInit, version: LiteVersion, limits: LiteLimits): void {
  if (!isLegacy(version)) throw versionError("ANNOUNCE_INIT", version, true);
  w.sized(() => {
    w.varint(msg.suffixes.length);
    for (const suffix of msg.suffixes) writePath(w, suffix, limits);
  });
}

/** Decodes an ANNOUNCE_INIT body. */
export function readAnnounceInit(r: BodyReader, version: LiteVersion, limits: LiteLimits): AnnounceInit {
  if (!isLegacy(version)) throw versionError("ANNOUNCE_INIT", version, false);
  const count = r.count(limits.maxListEntries, "announce init");
  const suffixes: string[] = [];
  for (let i = 0; i < count; i++) suffixes.push(r.path());
  return { type: "announce_init", suffixes };
}

/** Encodes ANNOUNCE_OK (size-prefixed, lite-05 only). */
export function writeAnnounceOk(w: ByteWriter, msg: AnnounceOk, version: LiteVersion): void {
  if (!hasTrackStream(version)) throw versionError("ANNOUNCE_OK", version, true);
  w.sized(() => w.varint(msg.hopId, "hopId").varint(msg.activeCount, "activeCount"));
}

/** Decodes an ANNOUNCE_OK body. */
export function readAnnounceOk(r: BodyReader, version: LiteVersion): AnnounceOk {
  if (!hasTrackStream(version)) throw versionError("ANNOUNCE_OK", version, false);
  const hopId = r.varint();
  const activeCount = r.varint();
  return { type: "announce_ok", hopId, activeCount };
}

function statusByte(status: AnnounceStatus, version: LiteVersion): number {
  switch (status) {
    case "ended":
      return 0;
    case "active":
      return 1;
    case "restart":
      if (!hasTrackStream(version)) throw versionError("announce restart status", version, true);
      return 2;
    default:
      return unreachable(status);
  }
}

function writeHops(w: ByteWriter, hops: readonly number[], limits: LiteLimits): void {
  if (hops.length > limits.maxHops) throw encodeError("too_many", `more than ${limits.maxHops} hops`);
  w.varint(hops.length);
  for (const hop of hops) w.varint(hop, "hop id");
}

function readHops(r: BodyReader, limits: LiteLimits, idsTravel: boolean): number[] {
  const count = r.varint();
  if (count > limits.maxHops) throw malformed("too_many", `${count} hops exceed the limit of ${limits.maxHops}`);
  const hops: number[] = [];
  for (let i = 0; i < count; i++) hops.push(idsTravel ? r.varint() : 0);
  return hops;
}

function announceId(msg: Announce): number {
  if (msg.id === undefined) throw encodeError("invalid_value", `a lite-06 announce ${msg.status} needs its announce id`);
  return msg.id;
}

/** Encodes a lite-06 ANNOUNCE_START / END / UPDATE: type, then the size-prefixed body. */
function writeAnnounce06(w: ByteWriter, msg: Announce, limits: LiteLimits): void {
  switch (msg.status) {
    case "active":
      w.varint(ANNOUNCE_START).sized(() => {
        writePath(w, msg.suffix, limits);
        writeHops(w, msg.hops, limits);
        w.varint(msg.cost ?? 0, "route cost");
      });
      return;
    case "ended":
      w.varint(ANNOUNCE_END).sized(() => w.varint(announceId(msg), "announce id"));
      return;
    case "restart":
      w.varint(ANNOUNCE_UPDATE).sized(() => {
        w.varint(announceId(msg), "announce id");
        writeHops(w, msg.hops, limits);
        w.varint(msg.cost ?? 0, "route cost");
      });
      return;
    default:
      unreachable(msg.status);
  }
}

/** Decodes the body of a lite-06 announce message of type `announceType`. */
export function readAnnounce06(r: BodyReader, announceType: number, limits: LiteLimits): Announce {
  switch (announceType) {
    case ANNOUNCE_START: {
      const suffix = r.path();
      const hops = readHops(r, limits, true);
      return { type: "announce", status: "active", suffix, hops, cost: r.varint() };
    }
    case ANNOUNCE_END:
      return { type: "announce", status: "ended", suffix: "", hops: [], id: r.varint() };
    case ANNOUNCE_UPDATE: {
      const id = r.varint();
      const hops = readHops(r, limits, true);
      return { type: "announce", status: "restart", suffix: "", hops, id, cost: r.varint() };
    }
    default:
      throw malformed("unknown_type", `unknown announce message type ${announceType}`);
  }
}

/** Encodes ANNOUNCE_BROADCAST (size-prefixed; typed on lite-06). */
export function writeAnnounce(w: ByteWriter, msg: Announce, version: LiteVersion, limits: LiteLimits): void {
  if (hasAnnounceIds(version)) {
    writeAnnounce06(w, msg, limits);
    return;
  }
  const status = statusByte(msg.status, version);
  if (msg.hops.length > limits.maxHops) throw encodeError("too_many", `more than ${limits.maxHops} hops`);
  w.sized(() => {
    w.u8(status);
    writePath(w, msg.suffix, limits);
    if (isLegacy(version)) return;
    w.varint(msg.hops.length);
    if (version === LITE_03) return;
    for (const hop of msg.hops) w.varint(hop, "hop id");
  });
}

/** Decodes an ANNOUNCE_BROADCAST body. */
export function readAnnounce(r: BodyReader, version: LiteVersion, limits: LiteLimits): Announce {
  const raw = r.u8();
  let status: AnnounceStatus;
  if (raw === 0) status = "ended";
  else if (raw === 1) status = "active";
  else if (raw === 2 && hasTrackStream(version)) status = "restart";
  else throw malformed("invalid_value", `invalid announce status ${raw}`);
  const suffix = r.path();
  const hops = isLegacy(version) ? [] : readHops(r, limits, version !== LITE_03);
  return { type: "announce", status, suffix, hops };
}
