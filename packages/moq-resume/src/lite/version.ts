import { LiteError, LiteErrorCode } from "./errors.js";

/** lite-01 wire version code (negotiated in-band by the 0x20/0x21 SETUP). */
export const LITE_01 = 0xff0dad01;
/** lite-02 wire version code (negotiated in-band by the 0x20/0x21 SETUP). */
export const LITE_02 = 0xff0dad02;
/** lite-03 wire version code (selected by ALPN `moq-lite-03`). */
export const LITE_03 = 0xff0dad03;
/** lite-04 wire version code (selected by ALPN `moq-lite-04`). */
export const LITE_04 = 0xff0dad04;
/** lite-05 wire version code (selected by ALPN `moq-lite-05`). */
export const LITE_05 = 0xff0dad05;
/**
 * `moq-lite-06-wip` as today's clients speak it (`@moq/net` 0.3, the reference's
 * `Lite06Wip`): lite-05 plus announce ids, the route cost and no exclude hop. Selected by
 * ALPN only; the code is the draft's `0xff0dad06`.
 */
export const LITE_06_WIP = 0xff0dad06;
/**
 * `moq-lite-06`: {@link LITE_06_WIP} plus frame bounds in SUBSCRIBE, SUBSCRIBE_UPDATE, FETCH and
 * GROUP (the draft's frame-precise resume). Selected by ALPN only; its code is ours and never
 * travels (the in-band SETUP negotiates lite-01/02 only).
 */
export const LITE_06 = 0xff0dad16;

/** A moq-lite version this codec speaks, as its version number. */
export type LiteVersion = typeof LITE_01 | typeof LITE_02 | typeof LITE_03 | typeof LITE_04 | typeof LITE_05 | typeof LITE_06_WIP | typeof LITE_06;

/** Every supported version, oldest first. */
export const LITE_VERSIONS: readonly LiteVersion[] = [LITE_01, LITE_02, LITE_03, LITE_04, LITE_05, LITE_06_WIP, LITE_06];

/** ALPN (or WebTransport protocol) that selects lite-01/02: the version then comes from SETUP. */
export const ALPN_LEGACY = "moql";

/** The ALPN string of a version (`moql` for the SETUP-negotiated ones). */
export function liteAlpn(version: LiteVersion): string {
  switch (version) {
    case LITE_01:
    case LITE_02:
      return ALPN_LEGACY;
    case LITE_03:
      return "moq-lite-03";
    case LITE_04:
      return "moq-lite-04";
    case LITE_05:
      return "moq-lite-05";
    case LITE_06_WIP:
      return "moq-lite-06-wip";
    case LITE_06:
      return "moq-lite-06";
    default:
      return unreachable(version);
  }
}

/** The version an ALPN selects, `"setup"` for the in-band negotiated one, or undefined. */
export function versionFromAlpn(alpn: string): LiteVersion | "setup" | undefined {
  switch (alpn) {
    case ALPN_LEGACY:
    case "":
      return "setup";
    case "moq-lite-03":
      return LITE_03;
    case "moq-lite-04":
      return LITE_04;
    case "moq-lite-05":
      return LITE_05;
    case "moq-lite-06-wip":
      return LITE_06_WIP;
    case "moq-lite-06":
      return LITE_06;
    default:
      return undefined;
  }
}

/** Narrows a wire version number to a supported {@link LiteVersion}. */
export function isLiteVersion(value: number): value is LiteVersion {
  return (LITE_VERSIONS as readonly number[]).includes(value);
}

/** Human name, e.g. `lite-03`, `lite-06-wip`. */
export function liteVersionName(version: LiteVersion): string {
  return liteAlpn(version) === ALPN_LEGACY ? `lite-0${String(version - 0xff0dad00)}` : liteAlpn(version).slice("moq-".length);
}

/** lite-06 in either spelling: announce ids, route costs, no exclude hop. */
export function isLite06(version: LiteVersion): boolean {
  return version === LITE_06_WIP || version === LITE_06;
}

/** 01/02: the legacy layout (in-band SETUP, ANNOUNCE_INIT, no SUBSCRIBE_UPDATE). */
export function isLegacy(version: LiteVersion): boolean {
  return version === LITE_01 || version === LITE_02;
}

/** lite-03+: SUBSCRIBE carries ordered/latency/start/end, typed responses, PROBE, FETCH. */
export function hasExtendedSubscribe(version: LiteVersion): boolean {
  return !isLegacy(version);
}

/** lite-04+: PROBE carries the RTT. */
export function hasProbeRtt(version: LiteVersion): boolean {
  return version === LITE_04 || hasTrackStream(version);
}

/** lite-04+: the GOAWAY stream. */
export function hasGoaway(version: LiteVersion): boolean {
  return version === LITE_04 || hasTrackStream(version);
}

/** lite-04+: announces carry the hop ids (lite-03 only their count). */
export function hasHopIds(version: LiteVersion): boolean {
  return version === LITE_04 || hasTrackStream(version);
}

/** lite-04/05 only: ANNOUNCE_REQUEST carries exclude_hop (lite-06 dropped it; the hop-chain loop check stays). */
export function hasExcludeHop(version: LiteVersion): boolean {
  return version === LITE_04 || version === LITE_05;
}

/**
 * lite-06: typed ANNOUNCE_START/END/UPDATE messages, each START assigning the next announce
 * id of the stream, and a route cost with every hop chain.
 */
export function hasAnnounceIds(version: LiteVersion): boolean {
  return isLite06(version);
}

/** `moq-lite-06` (not the -wip spelling): frame bounds in SUBSCRIBE, SUBSCRIBE_UPDATE, FETCH and GROUP. */
export function hasFrameBounds(version: LiteVersion): boolean {
  return version === LITE_06;
}

/**
 * lite-05+: SETUP uni stream, TRACK/TRACK_INFO, frame timestamps, SUBSCRIBE_START/END,
 * ANNOUNCE_OK, the restart status, FETCH served.
 */
export function hasTrackStream(version: LiteVersion): boolean {
  return version === LITE_05 || isLite06(version);
}

/** Error for a message used with a version that lacks it. */
export function versionError(what: string, version: LiteVersion, encoding: boolean): LiteError {
  return new LiteError(
    encoding ? LiteErrorCode.Encode : LiteErrorCode.Version,
    "version",
    `${what} does not exist in ${liteVersionName(version)}`,
  );
}

/** Exhaustiveness helper for switches over unions. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${String(value)}`);
}
