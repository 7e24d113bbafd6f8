import { LiteError, LiteErrorCode, type LiteResult, malformed } from "./errors.js";
import { type LiteVersion, hasGoaway, hasTrackStream, isLegacy, liteVersionName, unreachable } from "./version.js";

/** Bidirectional (control) stream type ids. */
export const BidiStreamType = {
  Session: 0,
  Announce: 1,
  Subscribe: 2,
  Fetch: 3,
  Probe: 4,
  Goaway: 5,
  Track: 6,
} as const;

/** Unidirectional (data) stream type ids. */
export const UniStreamType = {
  Group: 0,
  Setup: 1,
} as const;

/** What a bidirectional stream carries. */
export type BidiKind = "announce" | "subscribe" | "fetch" | "probe" | "goaway" | "track";

/** What a unidirectional stream carries. */
export type UniKind = "group" | "setup";

/** Any stream kind. */
export type StreamKind = BidiKind | UniKind;

/** The stream-type header: the first varint of every lite stream. */
export interface StreamHeader {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "stream_header";
  /** What the stream carries; decides how the rest of it is read. */
  readonly kind: StreamKind;
}

/** Wire id of a stream kind. */
export function streamTypeId(kind: StreamKind): number {
  switch (kind) {
    case "announce":
      return BidiStreamType.Announce;
    case "subscribe":
      return BidiStreamType.Subscribe;
    case "fetch":
      return BidiStreamType.Fetch;
    case "probe":
      return BidiStreamType.Probe;
    case "goaway":
      return BidiStreamType.Goaway;
    case "track":
      return BidiStreamType.Track;
    case "group":
      return UniStreamType.Group;
    case "setup":
      return UniStreamType.Setup;
    default:
      return unreachable(kind);
  }
}

/** Whether `kind` is a unidirectional stream. */
export function isUniKind(kind: StreamKind): kind is UniKind {
  return kind === "group" || kind === "setup";
}

/** Whether a stream of `kind` may be opened on `version`, as the reference serves them. */
export function streamAllowed(kind: StreamKind, version: LiteVersion): boolean {
  switch (kind) {
    case "announce":
    case "subscribe":
    case "group":
      return true;
    case "probe":
      return !isLegacy(version);
    case "goaway":
      return hasGoaway(version);
    // The reference serves FETCH only on lite-05+ although the message exists from lite-03.
    case "fetch":
    case "track":
    case "setup":
      return hasTrackStream(version);
    default:
      return unreachable(kind);
  }
}

function notHere(kind: string, version: LiteVersion): LiteError {
  return new LiteError(LiteErrorCode.UnexpectedStream, "unexpected_stream", `${kind} stream is not accepted on ${liteVersionName(version)}`);
}

/**
 * Classifies the type id of a bidirectional stream the peer opened. An id the reference does
 * not know is a decode error (code 5); a known id this version does not serve — including
 * type 0 (the lite-01/02 session stream, which is negotiated by the 0x20 SETUP, never opened
 * by type) — is `UnexpectedStream` (code 10). Either way only that stream is reset; the session
 * lives on (reference: `lite/publisher.rs` `handle`).
 */
export function classifyBidi(id: number, version: LiteVersion): LiteResult<BidiKind> {
  let kind: BidiKind;
  switch (id) {
    case BidiStreamType.Session:
      return { ok: false, error: notHere("session", version) };
    case BidiStreamType.Announce:
      kind = "announce";
      break;
    case BidiStreamType.Subscribe:
      kind = "subscribe";
      break;
    case BidiStreamType.Fetch:
      kind = "fetch";
      break;
    case BidiStreamType.Probe:
      kind = "probe";
      break;
    case BidiStreamType.Goaway:
      kind = "goaway";
      break;
    case BidiStreamType.Track:
      kind = "track";
      break;
    default:
      return { ok: false, error: malformed("unknown_type", `unknown bidi stream type ${id}`) };
  }
  return streamAllowed(kind, version) ? { ok: true, value: kind } : { ok: false, error: notHere(kind, version) };
}

/**
 * Classifies the type id of a unidirectional stream. Unknown ids are a decode error (code 5)
 * and SETUP before lite-05 is `UnexpectedStream` (code 10); the reference stops reading that
 * stream only (`lite/subscriber.rs` `run_uni_stream`).
 */
export function classifyUni(id: number, version: LiteVersion): LiteResult<UniKind> {
  let kind: UniKind;
  if (id === UniStreamType.Group) kind = "group";
  else if (id === UniStreamType.Setup) kind = "setup";
  else return { ok: false, error: malformed("unknown_type", `unknown uni stream type ${id}`) };
  return streamAllowed(kind, version) ? { ok: true, value: kind } : { ok: false, error: notHere(kind, version) };
}
